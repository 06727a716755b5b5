import { describe, expect, it } from "vitest";
import { type Clock, manualClock } from "../clock.js";
import { TroubleLog } from "../leases/trouble-log.js";
import type { Store, TaskRecord } from "../ports.js";
import { MemoryStore } from "../store/memory-store.js";
import { HeldTasks } from "./held-tasks.js";

const LEASE_MS = 60_000;

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
});
