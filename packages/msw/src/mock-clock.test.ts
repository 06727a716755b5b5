import { afterEach, describe, expect, it, vi } from "vitest";
import { MockServiceClock } from "./mock-clock.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("MockServiceClock", () => {
  it("moves only when advanced, by default", () => {
    const clock = new MockServiceClock(1_000, 0);
    expect(clock.now()).toBe(1_000);
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
  });

  it("follows Date.now() times its scale, fake timers included", () => {
    vi.useFakeTimers();
    const clock = new MockServiceClock(0, 600);
    vi.advanceTimersByTime(1_000);
    expect(clock.now()).toBe(600_000);
    clock.advance(1);
    expect(clock.now()).toBe(600_001);
  });

  it("refuses a negative or infinite scale", () => {
    expect(() => new MockServiceClock(0, -1)).toThrow(RangeError);
    expect(() => new MockServiceClock(0, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
