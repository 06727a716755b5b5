/**
 * Whether the synthetic renderer keeps up with compressed service time: at a
 * high GENVIDEO_TIME_SCALE the 10-minute deadline is a few real seconds, and a
 * burst of tasks created at once then times out behind the renders. The start
 * log warns once, so that a developer is not left with silent TIMEOUTs.
 */
import { TASK_DEADLINE_MS } from "@genvideo/schema";

/**
 * Real seconds one render of the default clip takes on one slot, rounded up
 * from `bench/renderer/render-time.mjs` on a 2-core machine (well under a
 * second with nothing else running): an estimate, not a measurement of this machine.
 */
export const ESTIMATED_RENDER_SECONDS = 1;

/** The burst the warning is about: tasks a test suite plausibly creates at once. */
export const BURST_TASKS = 10;

export interface RenderCapacityWarning {
  timeScale: number;
  rendersPerSecond: number;
  burstTasks: number;
  burstSeconds: number;
  deadlineSeconds: number;
  message: string;
}

/** The warning to log, or undefined when `slots` renders at once finish a burst before its deadline. */
export function renderCapacityWarning(timeScale: number, slots: number): RenderCapacityWarning | undefined {
  const rendersPerSecond = slots / ESTIMATED_RENDER_SECONDS;
  const deadlineSeconds = TASK_DEADLINE_MS / 1000 / timeScale;
  const burstSeconds = BURST_TASKS / rendersPerSecond;
  if (burstSeconds <= deadlineSeconds) return undefined;
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    timeScale,
    rendersPerSecond,
    burstTasks: BURST_TASKS,
    burstSeconds: round(burstSeconds),
    deadlineSeconds: round(deadlineSeconds),
    message:
      `renders cannot keep up with GENVIDEO_TIME_SCALE=${timeScale}: the 10-minute deadline is ` +
      `${round(deadlineSeconds)} s of real time, and about ${rendersPerSecond} renders per second ` +
      `(GENVIDEO_WORKERS=${slots}) need ${round(burstSeconds)} s for ${BURST_TASKS} tasks created at once, ` +
      "so they would time out; set GENVIDEO_RENDERER=fixture (one tiny MP4, no rendering) when time runs this fast",
  };
}
