import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../logging/logger.js";
import { DatabaseReachability } from "../store/database-reachability.js";
import { startWorkerLoop } from "./worker-loop.js";

const logger = createLogger("info", { write: () => undefined });

/**
 * Advances fake time a millisecond at a time, so the loop's promise chains run
 * between timers (a timer set to 0 ms inside a fake tick fires 1 ms later).
 */
async function advance(milliseconds: number) {
  for (let step = 0; step < milliseconds; step++) await vi.advanceTimersByTimeAsync(1);
}

describe("the worker loop", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("ticks again at once after a tick that did work, and waits the interval after one that did not", async () => {
    // Three ticks find work (a backlog), then the queue is empty.
    let backlog = 3;
    const tickedAt: number[] = [];
    const loop = startWorkerLoop(
      {
        async tick() {
          tickedAt.push(Date.now());
          return backlog-- > 0;
        },
      },
      { intervalMs: 1000, logger, didWork: (report) => report },
    );
    const start = Date.now();
    await advance(2100);
    const offsets = tickedAt.map((time) => time - start);
    // The first tick after the interval, three more right after it (the last found nothing), then the interval.
    expect(offsets).toHaveLength(5);
    expect(offsets[3]! - offsets[0]!).toBeLessThan(10);
    expect(offsets[4]! - offsets[3]!).toBe(1000);
    await loop.stop();
  });

  it("without didWork, ticks once per interval whatever the tick returns", async () => {
    let ticks = 0;
    const loop = startWorkerLoop(
      {
        async tick() {
          ticks++;
          return true;
        },
      },
      { intervalMs: 1000, logger },
    );
    await advance(3000);
    expect(ticks).toBe(3);
    await loop.stop();
  });

  it("a wake during a tick runs the next tick right after it", async () => {
    let ticks = 0;
    let loop: ReturnType<typeof startWorkerLoop> | undefined;
    loop = startWorkerLoop(
      {
        async tick() {
          ticks++;
          if (ticks === 1) loop?.wake();
        },
      },
      { intervalMs: 1000, logger },
    );
    await advance(1010);
    expect(ticks).toBe(2);
    await loop.stop();
  });

  it("counts failures in an episode of the database out of reach instead of logging them, and logs a bug", async () => {
    const lines: Record<string, unknown>[] = [];
    const logged = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
    const reachability = new DatabaseReachability({ logger: logged, now: () => Date.now() });
    const failures: Error[] = [
      ...Array.from({ length: 5 }, () => new Error("timeout expired")),
      new TypeError("cannot read properties of undefined"),
    ];
    const loop = startWorkerLoop(
      {
        async tick() {
          const failure = failures.shift();
          if (failure) throw failure;
        },
      },
      {
        name: "housekeeping",
        intervalMs: 1000,
        logger: logged,
        countedElsewhere: (error) => reachability.housekeepingFailed(error),
      },
    );
    await advance(7000);
    await loop.stop();
    expect(lines.map(({ level, msg }) => `${level} ${msg}`)).toEqual([
      "warn PostgreSQL out of reach: requests that need it are answered 503 DATABASE_UNAVAILABLE until it answers again",
      "error housekeeping failed",
      "info housekeeping recovered",
    ]);
    // The episode ends at the database's next answer, with the five failures counted.
    await reachability.serve(async () => undefined);
    expect(lines.at(-1)).toMatchObject({ msg: "PostgreSQL reachable again", failedHousekeeping: 5 });
  });
});
