/**
 * Runs the video retention sweep at start and then every so often from the
 * worker loop. A sweep lists and stats a directory, which can take a while
 * with many videos, so it runs beside the loop instead of holding up ticks,
 * one at a time; `stop()` waits for the one in flight.
 */
import type { Logger } from "../logging/logger.js";
import type { VideoSweep } from "./video-file-storage.js";

export interface SweepableStorage {
  readonly retentionMs: number;
  sweep(now?: number): Promise<VideoSweep>;
}

export interface RetentionSweeper {
  /** Sweeps now and resolves when done (the startup sweep). */
  sweepNow(): Promise<void>;
  /** Starts a sweep in the background if the interval has passed since the last one started. */
  sweepIfDue(): void;
  /** Waits for a sweep in flight; no more start afterwards. */
  stop(): Promise<void>;
}

/** How many task ids one log line names; the count is always exact. */
const LOGGED_TASK_IDS = 100;

export function createRetentionSweeper(
  storage: SweepableStorage,
  options: { intervalMs: number; logger: Logger; now?: () => number },
): RetentionSweeper {
  const now = options.now ?? (() => performance.now());
  let lastStart = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  let stopped = false;

  const run = (): Promise<void> => {
    lastStart = now();
    inFlight = storage
      .sweep()
      .then(
        (result) => {
          if (result.taskIds.length === 0 && result.partials === 0) return;
          options.logger.info(
            {
              deleted: result.taskIds.length,
              taskIds: result.taskIds.slice(0, LOGGED_TASK_IDS),
              partials: result.partials,
              retentionMs: storage.retentionMs,
            },
            "video retention sweep deleted videos",
          );
        },
        (error: unknown) => options.logger.error({ err: error }, "video retention sweep failed"),
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return {
    sweepNow: () => inFlight ?? run(),
    sweepIfDue() {
      if (stopped || inFlight || now() - lastStart < options.intervalMs) return;
      void run();
    },
    async stop() {
      stopped = true;
      await inFlight;
    },
  };
}
