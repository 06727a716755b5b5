import { afterEach, describe, expect, it, vi } from "vitest";
import { manualClock, systemClock } from "../clock.js";
import { LeaseDeadline, LeaseExpiredError } from "./lease-deadline.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("LeaseDeadline", () => {
  it("aborts its signal when the lease runs out in real time, at the clock's scale", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    // 20 service milliseconds per real one: a 2 s lease of service time runs out in 100 real ms.
    const clock = systemClock(20);
    const lease = new LeaseDeadline(clock, clock.now() + 2_000);
    vi.advanceTimersByTime(99);
    expect(lease.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(LeaseExpiredError);
  });

  it("moves its end with each renewal, and stays over once over", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = systemClock(1);
    const lease = new LeaseDeadline(clock, clock.now() + 1_000);
    vi.advanceTimersByTime(600);
    lease.leaseExpiresAt = clock.now() + 1_000;
    vi.advanceTimersByTime(900);
    expect(lease.signal.aborted).toBe(false);
    vi.advanceTimersByTime(100);
    expect(lease.signal.aborted).toBe(true);
    // A renewal that committed after the end came too late: another worker may hold the lease.
    lease.leaseExpiresAt = clock.now() + 1_000;
    expect(lease.signal.aborted).toBe(true);
    expect(lease.check()).toBe(true);
  });

  it("aborts for the holder's own reason, leaves the lease's end alone and keeps no timer", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = systemClock(1);
    const lease = new LeaseDeadline(clock, clock.now() + 1_000);
    const signal = lease.signal;
    const draining = new Error("engine draining");
    lease.abort(draining);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(draining);
    // A renewal after it arms nothing, and the lease is not over until its end.
    lease.leaseExpiresAt = clock.now() + 2_000;
    expect(vi.getTimerCount()).toBe(0);
    expect(lease.check()).toBe(false);
    expect(lease.leaseExpiresAt).toBe(clock.now() + 2_000);
    // Aborted before its signal was ever asked for: the signal comes aborted.
    const unasked = new LeaseDeadline(clock, clock.now() + 1_000);
    unasked.abort(draining);
    expect(unasked.signal.reason).toBe(draining);
  });

  it("sets no timer on a clock moved by hand: check() ends it by that clock", () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const lease = new LeaseDeadline(clock, clock.now() + 1_000);
    expect(vi.getTimerCount()).toBe(0);
    clock.advance(999);
    expect(lease.check()).toBe(false);
    clock.advance(1);
    expect(lease.check()).toBe(true);
    expect(lease.signal.aborted).toBe(true);
  });

  it("leaves no timer once disposed", () => {
    vi.useFakeTimers();
    const lease = new LeaseDeadline(systemClock(1), Date.now() + 1_000);
    expect(lease.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    lease.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sets its timer when its signal is first asked for; until then check() alone ends it", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = systemClock(1);
    let runOuts = 0;
    const lease = new LeaseDeadline(clock, clock.now() + 1_000, () => runOuts++);
    expect(vi.getTimerCount()).toBe(0);
    // Renewed while unwatched: still no timer, and the new end is the one checked.
    lease.leaseExpiresAt = clock.now() + 2_000;
    vi.advanceTimersByTime(1_999);
    expect(lease.check()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(lease.check()).toBe(true);
    expect(lease.check()).toBe(true);
    expect(runOuts).toBe(1);
    // Asked for after it ran out: aborted at once, with the lease's end as the reason.
    expect(lease.signal.aborted).toBe(true);
    expect((lease.signal.reason as LeaseExpiredError).leaseExpiresAt).toBe(1_002_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("calls onRunOut once when its timer finds it run out", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = systemClock(1);
    let runOuts = 0;
    const lease = new LeaseDeadline(clock, clock.now() + 1_000, () => runOuts++);
    const { signal } = lease;
    vi.advanceTimersByTime(1_000);
    expect(signal.aborted).toBe(true);
    expect(lease.check()).toBe(true);
    expect(runOuts).toBe(1);
  });
});
