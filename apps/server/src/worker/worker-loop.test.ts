import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../logging/logger.js";
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
});
