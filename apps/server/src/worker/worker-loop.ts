/**
 * Drives the passive engine: it does due work (start, finish, time out,
 * deliver webhooks) only when asked, so the server asks often. Ticks never
 * overlap; a failing tick is logged and the loop goes on, because a transient
 * database error must not stop every task from ever finishing.
 */
import type { Logger } from "../logging/logger.js";

export interface Tickable<Report = unknown> {
  tick(): Promise<Report>;
}

export interface WorkerLoopOptions<Report = unknown> {
  /** Real milliseconds between the end of one tick and the start of the next. */
  intervalMs: number;
  /**
   * Whether a tick's report shows work done (tasks claimed or ended): the next
   * tick then starts at once, since more may be waiting. A backlog is worked
   * through back to back, not one batch per interval; an idle loop still waits.
   */
  didWork?: (report: Report) => boolean;
  logger: Logger;
  /** Runs after each tick (the clock's high-water mark, housekeeping); failures are logged. */
  afterTick?: () => Promise<void>;
  /**
   * What a failure is when it is expected (the database out of reach, a
   * session it ended): such a streak is logged at warn with this line, not as an error.
   */
  expectedFailure?: (error: unknown) => string | undefined;
  /**
   * Whether a failure belongs to an episode of the database out of reach, which counts it and
   * logs the episode itself: such a failure writes no line of its own. Checked before `expectedFailure`.
   * `startedAt` is `performance.now()` when the failed run began.
   */
  countedElsewhere?: (error: unknown, startedAt: number) => boolean;
  /** What a run is called in the log (default "worker tick"). */
  name?: string;
}

export interface WorkerLoop {
  /** Ticks now instead of at the end of the interval (or right after the tick in flight). */
  wake(): void;
  /** Stops after the tick in flight, if any. */
  stop(): Promise<void>;
}

export function startWorkerLoop<Report>(
  engine: Tickable<Report>,
  options: WorkerLoopOptions<Report>,
): WorkerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let consecutiveFailures = 0;
  /** Failures of the streak that an episode counted: the streak's log lines say only the others. */
  let loggedFailures = 0;
  const name = options.name ?? "worker tick";

  const runOnce = async () => {
    const startedAt = performance.now();
    try {
      const report = await engine.tick();
      if (options.didWork?.(report)) wakeRequested = true;
      await options.afterTick?.();
      if (loggedFailures > 0)
        options.logger.info({ afterFailures: consecutiveFailures }, `${name} recovered`);
      consecutiveFailures = 0;
      loggedFailures = 0;
    } catch (error) {
      consecutiveFailures++;
      if (options.countedElsewhere?.(error, startedAt)) return;
      loggedFailures++;
      // One line per streak start and then every 100th, so a dead disk doesn't flood the log.
      if (loggedFailures === 1 || loggedFailures % 100 === 0) {
        const expected = options.expectedFailure?.(error);
        if (expected) options.logger.warn({ reason: expected, consecutiveFailures }, `${name} failed`);
        else options.logger.error({ err: error, consecutiveFailures }, `${name} failed`);
      }
    }
  };

  let running = false;
  let wakeRequested = false;
  const start = () => {
    timer = undefined;
    running = true;
    current = runOnce().finally(() => {
      running = false;
      schedule();
    });
  };
  const schedule = () => {
    if (stopped) return;
    const delay = wakeRequested ? 0 : options.intervalMs;
    wakeRequested = false;
    timer = setTimeout(start, delay);
  };
  schedule();

  return {
    wake() {
      if (stopped) return;
      if (running) {
        wakeRequested = true;
        return;
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(start, 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
