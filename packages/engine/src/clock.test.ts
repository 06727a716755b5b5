import { describe, expect, it } from "vitest";
import { manualClock, systemClock } from "./clock.js";

describe("manualClock", () => {
  it("moves only when advanced, never backward", () => {
    const clock = manualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advance(600_000)).toBe(601_000);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.set(0)).toThrow(RangeError);
    expect(clock.now()).toBe(601_000);
  });
});

describe("systemClock", () => {
  it("runs `scale` times faster than wall time", async () => {
    const clock = systemClock(1_000);
    const before = clock.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.now() - before).toBeGreaterThanOrEqual(15_000);
  });

  it("rejects a scale that is not a positive number", () => {
    expect(() => systemClock(0)).toThrow(/positive/);
    expect(() => systemClock(Number.NaN)).toThrow(/positive/);
  });
});
