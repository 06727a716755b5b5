import { describe, expect, it } from "vitest";
import type { WorkSignals } from "../store/sqlite-work-signals.js";
import { gateTicks } from "./tick-gate.js";

/**
 * A database stand-in the test writes to and schedules in, and clocks it
 * moves by hand: the gate reads time only through them, so no timer runs.
 */
function fixture({ scale = 1 } = {}) {
  const state = { writes: 0, due: undefined as number | undefined, real: 0, ticks: 0, failNext: false };
  const signals: WorkSignals = {
    writeMark: () => String(state.writes),
    nextDueAt: () => state.due,
  };
  const gate = gateTicks(
    {
      async tick() {
        state.ticks++;
        if (state.failNext) {
          state.failNext = false;
          throw new Error("database is locked");
        }
        return "report";
      },
    },
    {
      signals,
      // Service time starts at 1 000 000 and runs `scale` times faster than real time.
      clock: { now: () => 1_000_000 + state.real * scale, scale },
      fullTickEveryMs: 1000,
      realTime: () => state.real,
    },
  );
  /** Advances real time by `ms` in 50 ms intervals, ticking at each as the loop does. */
  const run = async (ms: number) => {
    for (let elapsed = 0; elapsed < ms; elapsed += 50) {
      state.real += 50;
      await gate.tick();
    }
  };
  return { state, gate, run };
}

describe("the tick gate", () => {
  it("runs the first tick, then skips while nothing is written and nothing is due", async () => {
    const { state, gate, run } = fixture();
    expect(await gate.tick()).toBe("report");
    await run(900);
    expect(state.ticks).toBe(1);
    expect(await gate.tick()).toBeUndefined();
  });

  it("runs the next tick after any write (a create, another process's commit)", async () => {
    const { state, gate, run } = fixture();
    await gate.tick();
    await run(200);
    state.writes++;
    await run(50);
    expect(state.ticks).toBe(2);
    await run(200);
    expect(state.ticks).toBe(2);
  });

  it("counts a write made while a tick runs as new, so the next tick sees it", async () => {
    const { state } = fixture();
    const gate = gateTicks(
      {
        async tick() {
          state.ticks++;
          // A create answered while the tick awaited the store: after the claim, before the end.
          if (state.ticks === 1) state.writes++;
        },
      },
      {
        signals: { writeMark: () => String(state.writes), nextDueAt: () => undefined },
        clock: { now: () => 0, scale: 1 },
        fullTickEveryMs: 1000,
        realTime: () => state.real,
      },
    );
    await gate.tick();
    state.real += 50;
    await gate.tick();
    expect(state.ticks).toBe(2);
  });

  it("runs on every interval while work is due now (tasks queued or processing)", async () => {
    const { state, gate, run } = fixture();
    state.due = 1_000_000;
    await gate.tick();
    await run(500);
    expect(state.ticks).toBe(11);
  });

  it("wakes for work due later in service time, converted to real time by the time scale", async () => {
    // A webhook retry 30 s of service time away is 500 ms away at scale 60.
    const { state, gate, run } = fixture({ scale: 60 });
    state.due = 1_000_000 + 30_000;
    await gate.tick();
    state.due = undefined;
    await run(450);
    expect(state.ticks).toBe(1);
    await run(50);
    expect(state.ticks).toBe(2);
  });

  it("runs a full tick at least every fullTickEveryMs whatever the signals say", async () => {
    const { state, gate, run } = fixture();
    await gate.tick();
    await run(3000);
    expect(state.ticks).toBe(4);
  });

  it("runs in full after expectWork, and after a tick that failed", async () => {
    const { state, gate, run } = fixture();
    await gate.tick();
    gate.expectWork();
    await run(50);
    expect(state.ticks).toBe(2);
    state.failNext = true;
    state.writes++;
    state.real += 50;
    await expect(gate.tick()).rejects.toThrow("database is locked");
    await run(50);
    expect(state.ticks).toBe(4);
    await run(200);
    expect(state.ticks).toBe(4);
  });
});
