import { afterEach, describe, expect, it, vi } from "vitest";
import { type Clock, manualClock, systemClock } from "../clock.js";
import { TroubleLog } from "../leases/trouble-log.js";
import type { Store, StoreTransaction, TaskRecord } from "../ports.js";
import { MemoryStore } from "../store/memory-store.js";
import { HeldTasks } from "./held-tasks.js";

const LEASE_MS = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

/** Held tasks over a store that renews every lease it is asked to (nobody else holds them). */
function heldTasks(clock: Clock, store: Store = new MemoryStore()) {
  const trouble = new TroubleLog({ request() {}, error() {}, warn() {} });
  return new HeldTasks({ store, clock, workerId: "worker-a", leaseMs: LEASE_MS, trouble });
}

function claimed(id: string, leaseExpiresAt: number): TaskRecord {
  return { id, leaseExpiresAt } as TaskRecord;
}

describe("HeldTasks", () => {
  it("says whether any held task is due, including one moved earlier or held later", () => {
    const clock = manualClock(0);
    const held = heldTasks(clock);
    held.hold(claimed("late", LEASE_MS), 0, 5_000);
    held.hold(claimed("later", LEASE_MS), 0, 9_000);
    expect(held.anyDue(4_999)).toBe(false);
    expect(held.anyDue(5_000)).toBe(true);
    held.forget("late");
    expect(held.anyDue(5_000)).toBe(false);
    // A render ended: its task is due at its generation time, sooner than its deadline.
    held.setDueAt("later", 6_000);
    expect(held.anyDue(5_999)).toBe(false);
    expect(held.anyDue(6_000)).toBe(true);
    held.forget("later");
    held.hold(claimed("new", LEASE_MS), 0, 7_000);
    expect(held.anyDue(6_999)).toBe(false);
    expect(held.anyDue(7_000)).toBe(true);
    held.forget("new");
    expect(held.anyDue(Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it("sets no timer for a task whose lease signal nobody took, and still finds its lease run out", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = systemClock(1);
    const held = heldTasks(clock);
    held.hold(claimed("no-render", clock.now() + LEASE_MS), clock.now(), clock.now() + 120_000);
    held.hold(claimed("render", clock.now() + LEASE_MS), clock.now(), clock.now() + 120_000);
    const signal = held.leaseSignal("render");
    expect(vi.getTimerCount()).toBe(1);
    // The process froze past both leases: the render's timer stopped it, the renewal finds both.
    vi.advanceTimersByTime(LEASE_MS);
    expect(signal.aborted).toBe(true);
    expect((await held.renew(clock.now())).sort()).toEqual(["no-render", "render"]);
    expect(held.leaseSignal("no-render").aborted).toBe(true);
  });

  it("renews a lease the renewal reached in time, whether or not its signal was taken", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = systemClock(1);
    const renewed: string[] = [];
    const store = {
      transaction: (work) =>
        work({
          transitionTask: async (id: string) => renewed.push(id) > 0,
        } as Partial<StoreTransaction> as StoreTransaction),
    } as Pick<Store, "transaction"> as Store;
    const held = heldTasks(clock, store);
    held.hold(claimed("no-render", clock.now() + LEASE_MS), clock.now(), clock.now() + 120_000);
    held.hold(claimed("render", clock.now() + LEASE_MS), clock.now(), clock.now() + 120_000);
    const signal = held.leaseSignal("render");
    vi.advanceTimersByTime(LEASE_MS / 2 + 1_000);
    expect(await held.renew(clock.now())).toEqual([]);
    expect(renewed.sort()).toEqual(["no-render", "render"]);
    // Past the first lease's end: the renewed ones run on.
    vi.advanceTimersByTime(LEASE_MS / 2);
    expect(signal.aborted).toBe(false);
    expect(await held.renew(clock.now())).toEqual([]);
  });
});
