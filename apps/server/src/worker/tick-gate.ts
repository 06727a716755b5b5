/**
 * Skips the worker ticks that would find nothing. An idle tick on SQLite is
 * five transactions and their queries, a few milliseconds during which the
 * event loop answers nobody (node:sqlite is synchronous): twenty times a
 * second it cost an idle server 60 ms of CPU per second, and a status read
 * that arrived during one waited for it.
 *
 * Before each tick the gate asks the database two cheap questions (see
 * store/sqlite-work-signals.ts): was anything written since the last full
 * tick began, and is time-driven work due yet? The tick runs when either
 * says so, when the server asked for it (`expectWork`), and at least every
 * `fullTickEveryMs` whatever they say (the server's own housekeeping rides on
 * the tick: key "last used" times, the idempotency sweep). Every promise the
 * interval makes holds: work that a write creates (a create, a redelivery, a
 * render that ended, another process's commit) is seen at the next interval,
 * and work that time makes due (finish times, deadlines, leases, webhook
 * retries) is seen on the first interval after it is due.
 */
import type { WorkSignals } from "../store/sqlite-work-signals.js";
import type { Tickable } from "./worker-loop.js";

export interface TickGateOptions {
  signals: WorkSignals;
  /** Service time, and how much faster than real time it runs (GENVIDEO_TIME_SCALE). */
  clock: { now(): number; readonly scale: number };
  /** Real time between full ticks at most, even with nothing written or due. */
  fullTickEveryMs: number;
  /** Monotonic real milliseconds; `performance.now` by default. */
  realTime?: () => number;
}

export interface TickGate<Report> extends Tickable<Report | undefined> {
  /** The next tick runs in full (work this process knows about without a write: a render that ended). */
  expectWork(): void;
}

/** `engine`'s ticks, skipped (resolving to undefined) while nothing was written and nothing is due. */
export function gateTicks<Report>(engine: Tickable<Report>, options: TickGateOptions): TickGate<Report> {
  const { signals, clock, fullTickEveryMs } = options;
  const realTime = options.realTime ?? (() => performance.now());
  /** The write mark when the last full tick began: writes during it count as new. */
  let markAtTick: string | undefined;
  /** Real time at which work is next due, as the last full tick left the database. */
  let dueAt = Number.NEGATIVE_INFINITY;
  let lastFullTick = Number.NEGATIVE_INFINITY;
  let expected = true;

  const mustTick = (mark: string, now: number) =>
    expected || mark !== markAtTick || now >= dueAt || now - lastFullTick >= fullTickEveryMs;

  return {
    expectWork() {
      expected = true;
    },
    async tick() {
      const mark = signals.writeMark();
      const startedAt = realTime();
      if (!mustTick(mark, startedAt)) return undefined;
      expected = false;
      markAtTick = mark;
      lastFullTick = startedAt;
      try {
        const report = await engine.tick();
        const serviceNow = clock.now();
        const due = signals.nextDueAt(serviceNow);
        // Service time to real time: a retry 30 s of service time away is 0.5 s away at scale 60.
        dueAt = due === undefined ? Number.POSITIVE_INFINITY : realTime() + (due - serviceNow) / clock.scale;
        return report;
      } catch (error) {
        // A failed tick may have left its work undone: the next one runs in full.
        expected = true;
        throw error;
      }
    },
  };
}
