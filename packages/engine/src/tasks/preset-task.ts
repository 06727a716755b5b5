import type { Store, TaskScenario } from "../ports.js";
import { ACTIVE_STATES } from "./lifecycle.js";
import { finishAtOf } from "./scenario.js";

/** What `engine.presetTask()` sets on a task that has not ended. */
export interface TaskPreset {
  /** The outcome its generation has, in place of what its prompt asked: a failure, a timeout, a delay. */
  scenario?: TaskScenario;
  /** The video it ends with, so that no render is made for it. */
  videoKey?: string;
}

/**
 * Sets how an active task's generation goes: its scenario and, when given, its video. Its
 * generation time follows the scenario, counted from its creation as if it had been created with
 * it (a task back in the queue, with none, gets one when it is claimed). One compare-and-set, so
 * a task that ended meanwhile is left alone. Returns whether the task was changed.
 */
export function presetTask(
  store: Store,
  generationMs: number,
  taskId: string,
  preset: TaskPreset,
): Promise<boolean> {
  return store.transaction(async (tx) => {
    const task = await tx.getTask(taskId);
    if (!task) return false;
    const scenario = preset.scenario ?? task.scenario;
    const timed = task.state === "processing" || task.finishAt !== null;
    return tx.transitionTask(taskId, ACTIVE_STATES, {
      scenario,
      ...(preset.videoKey === undefined ? {} : { videoKey: preset.videoKey }),
      ...(timed ? { finishAt: finishAtOf(task.createdAt, scenario, generationMs) } : {}),
    });
  });
}
