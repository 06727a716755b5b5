import type { Clock } from "../clock.js";
import type { EngineConfig } from "../config.js";
import type { RandomUUID } from "../ids.js";
import { TroubleLog } from "../leases/trouble-log.js";
import type { EngineObserver, TaskOutcome } from "../observer.js";
import type { Renderer, Store, TaskRecord, VideoStorage } from "../ports.js";
import { CompletionBatch } from "./completion-batch.js";
import { HeldTasks, leaseOf } from "./held-tasks.js";
import {
  type CompletedVideo,
  completeTask,
  completeTasksAndClaim,
  failTask,
  taskEndedEvent,
} from "./lifecycle.js";
import { finishAtOf, mayNeedRender } from "./scenario.js";

/** What one pass of the task worker did. */
export interface TaskWorkReport {
  claimed: number;
  rendersStarted: number;
  released: number;
  completed: number;
  failed: number;
  timedOut: number;
}

export interface TaskWorkerDependencies {
  store: Store;
  clock: Clock;
  renderer: Renderer;
  videoStorage: VideoStorage;
  config: EngineConfig;
  /** This engine's lease owner name. */
  workerId: string;
  /** Source of the webhook ids written when a task ends. */
  randomUUID: RandomUUID;
  /**
   * Called when a render ends and at least half the render slots are free, unless a refill
   * (`refillSlots`) claims for them without a tick.
   */
  onRenderEnded?: () => void;
  /** Told of claims, ends and lease takeovers, after they commit. */
  observer?: EngineObserver;
}

/** Rows handled per query; a pass repeats a query while it comes back full. */
const BATCH = 100;
const MAX_BATCHES = 20;
/**
 * Runs `work` once the event loop's current turn is over (`setImmediate` where there is one, as in
 * Node), so renders that end in the same turn share one claim; elsewhere, after the current job.
 */
const afterThisTurn: (work: () => void) => void =
  (globalThis as { setImmediate?: (work: () => void) => unknown }).setImmediate ?? queueMicrotask;
/** The sweeps' listings only read: a store may run them at once, outside a transaction. */
const READ_ONLY = { readOnly: true } as const;

/**
 * Moves tasks through queued → processing → completed | failed when asked,
 * at the clock's time. Renders run in the background (tracked, abortable);
 * every state change is a compare-and-set, so several engines on one store
 * and a render racing its deadline end each task exactly once.
 */
export class TaskWorker {
  readonly #deps: TaskWorkerDependencies;
  /** Tasks rendering in this engine: each render runs on its task's lease signal, which a drain or a forced end aborts. */
  readonly #renders = new Set<string>();
  /** Each render's whole course, its recording included, which goes on after its slot is freed. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Tasks this engine has claimed and keeps leased until they end or are released. */
  readonly #held: HeldTasks;
  readonly #completions: CompletionBatch;
  readonly #trouble: TroubleLog;
  #lastReleaseSweep = Number.NEGATIVE_INFINITY;
  #lastEndSweep = Number.NEGATIVE_INFINITY;
  #draining = false;
  /** Tasks renders completed since the last report (see `#recordRender`). */
  #completedByRenders = 0;
  /** Render slots that claims in flight may fill: taken already, so claims at once never overfill. */
  #slotsBeingClaimed = 0;
  /** Whether a refill is pending or its claim in flight (see `#refill`). */
  #refilling = false;
  /** Whether a refill waits for the end of this turn of the event loop: its claim will carry the completions then waiting. */
  #refillComing = false;
  /**
   * Whether the last claim took as many tasks as it had slots for: the queue may hold more, so a
   * slot that frees is worth a refill. After a claim that came back short, slots wait for a tick
   * (woken by new work, or its interval) as they always did.
   */
  #queueMayHoldMore = false;
  /** What refills claimed and started since the last report. */
  #claimedByRefills = { claimed: 0, rendersStarted: 0 };

  constructor(deps: TaskWorkerDependencies) {
    this.#deps = deps;
    const { store, clock, workerId, randomUUID, config } = deps;
    this.#trouble = new TroubleLog(config.logger);
    this.#held = new HeldTasks({ store, clock, workerId, leaseMs: config.leaseMs, trouble: this.#trouble });
    this.#completions = new CompletionBatch({
      store,
      clock,
      workerId,
      randomUUID,
      claimComing: () => this.#refillComing,
    });
  }

  /** Renders in flight in this engine. */
  get activeRenders(): number {
    return this.#renders.size;
  }

  /** Tasks this engine holds under a lease. */
  get leasesHeld(): number {
    return this.#held.size;
  }

  /**
   * First half of a tick: renew our leases, return crashed workers' tasks to
   * the queue, claim queued tasks while render slots are free and start them.
   */
  async startDue(now: number): Promise<Pick<TaskWorkReport, "claimed" | "rendersStarted" | "released">> {
    const report = { claimed: 0, rendersStarted: 0, released: 0 };
    // Ours are renewed before the sweep below, so it never finds one of them expired.
    for (const id of await this.#held.renew(now)) this.#forget(id, "lease lost");
    if (this.#sweepDue(this.#lastReleaseSweep, now)) {
      report.released = await this.#releaseExpiredLeases(now);
      this.#lastReleaseSweep = now;
    }
    if (this.#draining) return report;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const slots = this.#freeSlots();
      if (slots <= 0) break;
      const claimed = await this.#claimAndStart(now, slots);
      report.claimed += claimed.length;
      report.rendersStarted += claimed.filter(needsRender).length;
      // Claim again while slots are free if this claim may have stopped short: it came back full, or
      // it counted a [[timeout]] task, which takes no slot, against its render limit.
      if (claimed.length < BATCH && claimed.filter(mayNeedRender).length < slots) break;
    }
    report.claimed += this.#claimedByRefills.claimed;
    report.rendersStarted += this.#claimedByRefills.rendersStarted;
    this.#claimedByRefills = { claimed: 0, rendersStarted: 0 };
    return report;
  }

  /**
   * Second half of a tick: end tasks whose time has come. Completions and
   * scenario failures due by their deadline go first, so a task that was due
   * before its deadline is not timed out by a late tick.
   */
  async finishDue(now: number): Promise<Pick<TaskWorkReport, "completed" | "failed" | "timedOut">> {
    const report = { completed: this.#completedByRenders, failed: 0, timedOut: 0 };
    this.#completedByRenders = 0;
    if (!this.#sweepDue(this.#lastEndSweep, now) && !this.#held.anyDue(now)) return report;
    const { store, randomUUID } = this.#deps;
    const at = { now, randomUUID };
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await store.transaction((tx) => tx.listDueCompletions(now, BATCH), READ_ONLY);
      let ended = 0;
      for (const task of due) {
        if (task.finishAt === null || task.finishAt > task.deadlineAt) continue;
        // Fenced by the lease as listed: if another process took the task over meanwhile
        // (this one froze after the list), the end is theirs to write, not ours.
        const fenced = { ...at, ...leaseOf(task) };
        const fail = task.scenario.fail;
        if (fail) {
          if (await store.transaction((tx) => failTask(tx, task, fail, fenced))) {
            report.failed++;
            this.#ended(task, fail, now);
          }
        } else if (task.videoKey !== null) {
          const video = await this.#videoOf(task, task.videoKey, now);
          if (await store.transaction((tx) => completeTask(tx, task, video, fenced))) {
            report.completed++;
            this.#ended(task, "completed", now);
          }
        }
        this.#forget(task.id);
        ended++;
      }
      if (due.length < BATCH || ended === 0) break;
    }
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const overdue = await store.transaction((tx) => tx.listOverdueTasks(now, BATCH), READ_ONLY);
      for (const task of overdue) {
        const fenced = { ...at, ...leaseOf(task) };
        if (await store.transaction((tx) => failTask(tx, task, "TIMEOUT", fenced))) {
          report.timedOut++;
          this.#ended(task, "TIMEOUT", now);
        }
        this.#forget(task.id, "deadline reached");
      }
      if (overdue.length < BATCH) break;
    }
    this.#lastEndSweep = now;
    return report;
  }

  /**
   * Whether a sweep for work this engine does not hold, last run at `last`, is due again at `now`
   * (`sweepIntervalMs` later, or at once if the clock was set back).
   */
  #sweepDue(last: number, now: number): boolean {
    return now - last >= this.#deps.config.sweepIntervalMs || now < last;
  }

  /** Resolves once no render started by this engine is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** Graceful stop: claim nothing more, abort renders, hand our tasks back to the queue. */
  async drain(): Promise<void> {
    this.#draining = true;
    for (const id of this.#renders) this.#held.stop(id, new Error("engine draining"));
    await this.idle();
    await this.#held.releaseAll();
  }

  /** Render slots neither rendering nor about to be filled by a claim in flight. */
  #freeSlots(): number {
    return this.#deps.config.workerConcurrency - this.#renders.size - this.#slotsBeingClaimed;
  }

  /** Whether half the render slots or more are free: worth one claim for them all. */
  #halfFree(): boolean {
    return this.#freeSlots() >= this.#deps.config.workerConcurrency / 2;
  }

  /** Claims for `slots` free render slots, holds what came and starts its renders. */
  async #claimAndStart(now: number, slots: number): Promise<TaskRecord[]> {
    this.#slotsBeingClaimed += slots;
    let claimed: TaskRecord[];
    try {
      claimed = await this.#claim(now, slots);
    } finally {
      this.#slotsBeingClaimed -= slots;
    }
    this.#queueMayHoldMore = claimed.filter(mayNeedRender).length >= slots;
    for (const task of claimed) {
      this.#deps.observer?.taskClaimed?.({ queueWaitMs: Math.max(0, now - task.createdAt) });
      this.#held.hold(task, now, needsRender(task) ? task.deadlineAt : endOf(task));
      // Claimed while the worker began to drain: held without a render, so the drain hands it back.
      if (needsRender(task) && !this.#draining) this.#startRender(task);
    }
    return claimed;
  }

  /**
   * Fills free slots without waiting for a tick while a backlog waits (`refillSlots`): once half
   * the slots are free, as the tick's wake-up would, but claimed at the end of the event loop's
   * turn rather than a timer and a tick later (on PostgreSQL a third of a busy worker's time went
   * there), and with every slot freed in that turn. One refill is pending or in flight at a time;
   * slots freed meanwhile share the next. A refill that fails leaves its slots to the next tick,
   * whose claim meets the failure and reports it.
   */
  #refill() {
    if (this.#draining || this.#refilling || !this.#halfFree()) return;
    this.#refilling = true;
    this.#refillComing = true;
    let claimed = false;
    const refill = (async () => {
      await new Promise<void>((resolve) => afterThisTurn(resolve));
      this.#refillComing = false;
      if (this.#draining || !this.#halfFree()) {
        // The completions that waited for this claim go on their own.
        this.#completions.flush();
        return;
      }
      const tasks = await this.#claimAndStart(this.#deps.clock.now(), this.#freeSlots());
      this.#claimedByRefills.claimed += tasks.length;
      this.#claimedByRefills.rendersStarted += tasks.filter(needsRender).length;
      claimed = true;
    })().catch(() => {
      this.#queueMayHoldMore = false;
    });
    this.#inFlight.add(refill);
    void refill.then(() => {
      this.#inFlight.delete(refill);
      this.#refilling = false;
      // Slots freed while this claim was on its way.
      if (claimed && this.#queueMayHoldMore) this.#refill();
    });
  }

  /**
   * Claims as many queued tasks as `slots` renders allow, in creation order: those that need no
   * render ([[timeout]], scenario failures, a video kept from an earlier claim) take no slot, so a
   * backlog of them goes a batch per statement, not a slot's worth.
   */
  async #claim(now: number, slots: number): Promise<TaskRecord[]> {
    const { store, workerId, config } = this.#deps;
    const request = {
      owner: workerId,
      limit: BATCH,
      now,
      leaseExpiresAt: now + config.leaseMs,
      renderLimit: slots,
    };
    // The claim is one statement, with the completions of renders that ended since the last one
    // when they write no notification: on PostgreSQL it runs in autocommit, one round trip.
    const claimed = await this.#completions.carry(async (completions) =>
      completions.length > 0
        ? await store.transaction((tx) => completeTasksAndClaim(tx, completions, request), {
            singleWrite: true,
          })
        : {
            won: new Set<string>(),
            claimed: await store.transaction(
              (tx) => tx.claimQueuedTasks(workerId, BATCH, now, request.leaseExpiresAt, slots),
              { singleWrite: true },
            ),
          },
    );
    // Set at creation; written here only for a task released back to the queue (or created by a
    // process with another generation time). Should this fail, the tasks are leased but not held:
    // their leases run out and they are claimed again, with the generation time written then.
    const moved = claimed.flatMap((task) => {
      const finishAt = finishAtOf(task.createdAt, task.scenario, config.generationMs);
      return task.finishAt === finishAt ? [] : [{ task, finishAt }];
    });
    if (moved.length > 0) {
      await store.transaction(async (tx) => {
        for (const { task, finishAt } of moved)
          await tx.transitionTask(task.id, ["processing"], { finishAt }, workerId);
      });
      for (const { task, finishAt } of moved) task.finishAt = finishAt;
    }
    return claimed;
  }

  /**
   * Crashed or frozen workers' tasks back to the queue. Ours are never among them: the renewal
   * just before extended every lease we still hold, and one we lost is no longer ours.
   */
  async #releaseExpiredLeases(now: number): Promise<number> {
    const released = await this.#deps.store.transaction((tx) => tx.releaseExpiredLeases(now, BATCH), {
      singleWrite: true,
    });
    if (released > 0) this.#deps.observer?.leasesTakenOver?.(released);
    return released;
  }

  /** Tells the observer a task this worker ended (its compare-and-set won). */
  #ended(task: TaskRecord, outcome: TaskOutcome, now: number) {
    this.#deps.observer?.taskEnded?.(taskEndedEvent(task, outcome, now));
  }

  #startRender(task: TaskRecord) {
    const { renderer } = this.#deps;
    // Stopped by a drain, a forced outcome, or the task's lease running out: all abort the lease's signal.
    const signal = this.#held.leaseSignal(task.id);
    const job = {
      taskId: task.id,
      request: task.request,
      aspectRatio: task.aspectRatio,
      ...(task.traceParent ? { traceParent: task.traceParent } : {}),
    };
    const promise = (async () => {
      try {
        let videoKey: string;
        try {
          ({ videoKey } = await renderer.render(job, signal));
        } catch (error) {
          if (signal.aborted) return;
          await this.#failRender(task, error);
          return;
        }
        // A video made after the lease ran out is not ours to record: the next holder renders again.
        if (signal.aborted) return;
        // Rendered: the slot is free for the next task while this one is recorded (a completion's
        // round trip), as a queue's next job does not wait for the last one's completion.
        this.#renderEnded(task.id);
        try {
          await this.#recordRender(task, videoKey);
          this.#trouble.ended("record");
        } catch (error) {
          // Not the render's fault, so not GENERATION_FAILED: the store failed (PostgreSQL ended the
          // session of a process frozen meanwhile, a failover). The task is let go: its lease runs
          // out, and it is claimed and rendered again, here or elsewhere.
          this.#trouble.occurred("record", "could not record a render: the task is rendered again", {
            taskId: task.id,
            error: String(error),
          });
          this.#forget(task.id);
        }
      } finally {
        this.#renderEnded(task.id);
      }
    })();
    this.#renders.add(task.id);
    this.#inFlight.add(promise);
    promise.finally(() => this.#inFlight.delete(promise)).catch(() => undefined);
  }

  /**
   * Frees a render's slot (once); once half the slots are free, one claim fills them all: a refill
   * while a backlog waits, otherwise the next tick's.
   */
  #renderEnded(id: string) {
    if (!this.#renders.delete(id)) return;
    if (this.#deps.config.refillSlots && this.#queueMayHoldMore) {
      this.#refill();
      return;
    }
    if (this.#renders.size <= this.#deps.config.workerConcurrency / 2) this.#deps.onRenderEnded?.();
  }

  /** Records a finished render: the video, or (its generation time over already) the task's end. */
  async #recordRender(task: TaskRecord, videoKey: string) {
    const { store, clock, workerId } = this.#deps;
    const now = clock.now();
    if (task.finishAt !== null && task.finishAt <= now && task.finishAt <= task.deadlineAt) {
      // Its generation time is over already (it waited in a backlog longer than that, or
      // the clock is fast): the task ends in the transaction that records its video, as
      // `finishDue` would end it at the next tick, one transaction and one listing fewer.
      const video = await this.#videoOf(task, videoKey, now);
      const won = await this.#completions.complete(task, video);
      if (won) {
        this.#completedByRenders++;
        this.#ended(task, "completed", now);
      }
      // Lost otherwise (a lease taken over, a forced outcome): the video is not ours to record either.
      this.#forget(task.id);
      return;
    }
    const recorded = await store.transaction((tx) =>
      tx.transitionTask(task.id, ["processing"], { videoKey, updatedAt: now }, workerId),
    );
    // Ours to end when its generation time is over: the sweep runs for it then.
    if (recorded) this.#held.setDueAt(task.id, endOf(task));
  }

  /** The video as a completion records it: its URL is signed only for a notification to carry. */
  async #videoOf(task: TaskRecord, key: string, now: number): Promise<CompletedVideo> {
    if (task.callbackUrl === null) return { key, url: null };
    return { key, url: await this.#deps.videoStorage.signedUrl(key, task.id, now) };
  }

  /** The renderer failed: GENERATION_FAILED (refunded), if the task is still ours. */
  async #failRender(task: TaskRecord, error: unknown) {
    const { store, clock, workerId, randomUUID } = this.#deps;
    this.#deps.config.logger.error?.("render failed", { taskId: task.id, error: String(error) });
    const now = clock.now();
    await store
      .transaction((tx) => failTask(tx, task, "GENERATION_FAILED", { now, randomUUID, leaseOwner: workerId }))
      .then((won) => {
        if (won) this.#ended(task, "GENERATION_FAILED", now);
      })
      .catch((storeError: unknown) =>
        this.#deps.config.logger.error?.("could not record a failed render", {
          taskId: task.id,
          error: String(storeError),
        }),
      );
    this.#forget(task.id);
  }

  /** Stops tracking a task that was ended from outside the worker (a forced outcome), aborting its render. */
  abandon(id: string, reason: string): void {
    this.#forget(id, reason);
  }

  /** Stops tracking a task that ended or is no longer ours, aborting its render. */
  #forget(id: string, reason?: string) {
    this.#held.forget(id, reason && this.#renders.has(id) ? new Error(reason) : undefined);
  }
}

/** When a task that needs no render of ours is due to end: its generation time, or its deadline if sooner. */
function endOf(task: TaskRecord): number {
  return Math.min(task.finishAt ?? task.deadlineAt, task.deadlineAt);
}

function needsRender(task: TaskRecord): boolean {
  return task.videoKey === null && !task.scenario.fail && !task.scenario.timeout;
}
