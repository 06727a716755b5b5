import { type HeldLease, renewHalfSpentLeases } from "../leases/lease-renewal.js";
import type { Store, TaskRecord } from "../ports.js";

/** A task this worker holds: its lease as last written, and when it is due to end. */
interface HeldTask extends HeldLease {
  /** Its deadline, or sooner its generation time once nothing of ours must render. */
  dueAt: number;
}

export interface HeldTasksDependencies {
  store: Store;
  /** This engine's lease owner name. */
  workerId: string;
  leaseMs: number;
}

/**
 * The lease bookkeeping of a task worker: the tasks it has claimed and keeps leased until they
 * end or are released, when each is due to end, the renewal of their leases, and their release
 * when the worker drains.
 */
export class HeldTasks {
  readonly #deps: HeldTasksDependencies;
  readonly #tasks = new Map<string, HeldTask>();

  constructor(deps: HeldTasksDependencies) {
    this.#deps = deps;
  }

  /** Holds a task just claimed, due to end at `dueAt`. */
  hold(task: TaskRecord, now: number, dueAt: number): void {
    this.#tasks.set(task.id, { leaseExpiresAt: task.leaseExpiresAt ?? now, dueAt });
  }

  has(id: string): boolean {
    return this.#tasks.has(id);
  }

  /** How many tasks are held. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Moves when a held task is due to end; a task no longer held stays forgotten. */
  setDueAt(id: string, dueAt: number): void {
    const held = this.#tasks.get(id);
    if (held) held.dueAt = dueAt;
  }

  /** Whether a held task is due to end (or past its deadline) by `now`. */
  anyDue(now: number): boolean {
    for (const held of this.#tasks.values()) if (held.dueAt <= now) return true;
    return false;
  }

  /** Stops holding a task (it ended, or is no longer ours). */
  forget(id: string): void {
    this.#tasks.delete(id);
  }

  /**
   * Extends the leases of held tasks once half of their lease is used, and returns the ids of
   * those lost meanwhile (another worker took an expired one), for the worker to forget. A lease
   * lost shows here, or at the compare-and-set that ends the task.
   */
  renew(now: number): Promise<string[]> {
    const { store, workerId, leaseMs } = this.#deps;
    return renewHalfSpentLeases(store, this.#tasks, now, leaseMs, (tx, id, leaseExpiresAt) =>
      tx.transitionTask(id, ["processing"], { leaseExpiresAt }, workerId),
    );
  }

  /** Hands every held task back to the queue (a graceful stop), in one transaction. */
  async releaseAll(): Promise<void> {
    const { store, workerId } = this.#deps;
    const held = [...this.#tasks.keys()];
    this.#tasks.clear();
    await store.transaction(async (tx) => {
      for (const id of held) await tx.transitionTask(id, ["processing"], releasedPatch(), workerId);
    });
  }
}

/** The lease a listed task had, as a compare-and-set condition (none for a queued task). */
export function leaseOf(task: TaskRecord): { leaseOwner?: string } {
  return task.leaseOwner === null ? {} : { leaseOwner: task.leaseOwner };
}

/** Back to the queue; a rendered video is kept so the next claim needn't render again. */
function releasedPatch() {
  return {
    state: "queued" as const,
    leaseOwner: null,
    leaseExpiresAt: null,
    startedAt: null,
    finishAt: null,
  };
}
