import type { Clock } from "../clock.js";
import { LeaseDeadline } from "../leases/lease-deadline.js";
import { renewHalfSpentLeases } from "../leases/lease-renewal.js";
import type { TroubleLog } from "../leases/trouble-log.js";
import type { Store, TaskRecord } from "../ports.js";

/** A task this worker holds: its lease as last written (aborting its signal when it runs out), and when it is due to end. */
class HeldTask extends LeaseDeadline {
  /** Its deadline, or sooner its generation time once nothing of ours must render. */
  dueAt: number;

  constructor(clock: Clock, leaseExpiresAt: number, dueAt: number, onRunOut: () => void) {
    super(clock, leaseExpiresAt, onRunOut);
    this.dueAt = dueAt;
  }
}

export interface HeldTasksDependencies {
  store: Store;
  clock: Clock;
  /** Where lost leases and failed renewals are logged, once per episode. */
  trouble: TroubleLog;
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
  /** Held tasks whose lease ran out by its own timer, until they are forgotten. */
  readonly #ranOut = new Set<string>();
  /**
   * No held lease runs out before this (service time), as far as the last pass and the holds since
   * know: until half a lease before it, a renewal has nothing to do and skips the pass over every
   * held task (a backlog of tasks that need no render can hold thousands).
   */
  #earliestExpiry = Number.POSITIVE_INFINITY;
  /**
   * No held task is due to end before this (service time): `anyDue` is asked on every tick, and
   * scans the held tasks only once this has passed, then moves it to the earliest still held.
   */
  #earliestDue = Number.POSITIVE_INFINITY;

  constructor(deps: HeldTasksDependencies) {
    this.#deps = deps;
  }

  /** Holds a task just claimed, due to end at `dueAt`. */
  hold(task: TaskRecord, now: number, dueAt: number): void {
    this.forget(task.id);
    const held: HeldTask = new HeldTask(this.#deps.clock, task.leaseExpiresAt ?? now, dueAt, () => {
      if (this.#tasks.get(task.id) === held) this.#ranOut.add(task.id);
    });
    this.#tasks.set(task.id, held);
    this.#earliestExpiry = Math.min(this.#earliestExpiry, held.leaseExpiresAt);
    this.#earliestDue = Math.min(this.#earliestDue, dueAt);
  }

  /**
   * Aborts when the task's lease runs out (or at once, for a task not held): what is done on the
   * strength of the lease (its render, the video's upload) takes it, so it stops when another
   * worker may hold the task, even when this one cannot reach the database to learn that.
   */
  leaseSignal(id: string): AbortSignal {
    return this.#tasks.get(id)?.signal ?? AbortSignal.abort(new Error("task not held"));
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
    if (!held) return;
    held.dueAt = dueAt;
    this.#earliestDue = Math.min(this.#earliestDue, dueAt);
  }

  /** Whether a held task is due to end (or past its deadline) by `now`. */
  anyDue(now: number): boolean {
    if (now < this.#earliestDue) return false;
    let earliest = Number.POSITIVE_INFINITY;
    for (const held of this.#tasks.values()) {
      if (held.dueAt <= now) return true;
      earliest = Math.min(earliest, held.dueAt);
    }
    this.#earliestDue = earliest;
    return false;
  }

  /**
   * Aborts the lease signal of a task still held, for `reason` (the worker drains): its render
   * stops as if the lease had run out, and the task stays held until it is forgotten or released.
   */
  stop(id: string, reason: Error): void {
    this.#tasks.get(id)?.abort(reason);
  }

  /**
   * Stops holding a task (it ended, or is no longer ours); with a `reason`, what runs on the strength
   * of its lease (its render) is stopped too.
   */
  forget(id: string, reason?: Error): void {
    const held = this.#tasks.get(id);
    if (reason) held?.abort(reason);
    else held?.dispose();
    this.#tasks.delete(id);
    this.#ranOut.delete(id);
  }

  /**
   * Extends the leases of held tasks once half of their lease is used, and returns the ids of
   * those lost meanwhile, for the worker to forget: taken by another worker, or run out before a
   * renewal got through (this process could not reach the database). One that ran out is not
   * renewed even if nobody took it: its render was stopped when it ran out, so the task is let go
   * and claimed again, here or elsewhere. A lease lost shows here, or at the compare-and-set that
   * ends the task.
   */
  async renew(now: number): Promise<string[]> {
    const { trouble } = this.#deps;
    let lost: string[];
    try {
      lost = await this.#renew(now);
      trouble.ended("renewal");
    } catch (error) {
      trouble.occurred(
        "renewal",
        "task leases not renewed: the database did not answer; renders stop when their lease runs out",
        { tasks: this.#tasks.size, error: String(error) },
      );
      throw error;
    }
    if (lost.length === 0) trouble.ended("lease");
    else
      trouble.occurred("lease", "task leases lost: their renders were stopped; the tasks are claimed again", {
        tasks: lost.length,
      });
    return lost;
  }

  async #renew(now: number): Promise<string[]> {
    const { store, clock, workerId, leaseMs } = this.#deps;
    // Run out on a clock that runs by itself: by the lease's own timer (a task whose render took its
    // signal) or, for the others, by this pass. A clock moved by hand (the mock, where one process
    // holds everything) jumps past leases at will and renews them after.
    if (now <= this.#earliestExpiry - leaseMs / 2) return [...this.#ranOut];
    const live: [string, HeldTask][] = [];
    for (const entry of this.#tasks) {
      if (clock.scale !== undefined) entry[1].check(now);
      if (!this.#ranOut.has(entry[0])) live.push(entry);
    }
    const ranOut = [...this.#ranOut];
    const taken = await renewHalfSpentLeases(store, live, now, leaseMs, (tx, id, leaseExpiresAt) =>
      tx.transitionTask(id, ["processing"], { leaseExpiresAt }, workerId),
    );
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, held] of this.#tasks)
      if (!this.#ranOut.has(id)) earliest = Math.min(earliest, held.leaseExpiresAt);
    this.#earliestExpiry = earliest;
    return [...ranOut, ...taken];
  }

  /** Hands every held task back to the queue (a graceful stop), in one transaction. */
  async releaseAll(): Promise<void> {
    const { store, workerId } = this.#deps;
    const held = [...this.#tasks.keys()];
    for (const task of this.#tasks.values()) task.dispose();
    this.#tasks.clear();
    this.#ranOut.clear();
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
