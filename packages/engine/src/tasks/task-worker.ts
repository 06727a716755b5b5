import type { Clock } from "../clock.js";
import type { EngineConfig } from "../config.js";
import type { RandomUUID } from "../ids.js";
import type { Renderer, Store, TaskRecord, VideoStorage } from "../ports.js";
import { type CompletedVideo, completeTask, completeTasks, failTask } from "./lifecycle.js";
import { finishAtOf } from "./scenario.js";

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
  /** Called when a render ends and at least half the render slots are free. */
  onRenderEnded?: () => void;
}

interface RunningRender {
  controller: AbortController;
  promise: Promise<void>;
}

/** A rendered task due to end, and the render waiting to hear whether its completion won. */
interface PendingCompletion {
  task: TaskRecord;
  video: CompletedVideo;
  resolve: (won: boolean) => void;
  reject: (error: unknown) => void;
}

/** Rows handled per query; a pass repeats a query while it comes back full. */
const BATCH = 100;
const MAX_BATCHES = 20;

/**
 * Moves tasks through queued → processing → completed | failed when asked,
 * at the clock's time. Renders run in the background (tracked, abortable);
 * every state change is a compare-and-set, so several engines on one store
 * and a render racing its deadline end each task exactly once.
 */
export class TaskWorker {
  readonly #deps: TaskWorkerDependencies;
  readonly #renders = new Map<string, RunningRender>();
  /**
   * Tasks this engine has claimed and keeps leased until they end or are
   * released, with the time their lease runs out as last written.
   */
  readonly #held = new Map<string, number>();
  /** When each held task is due to end: its deadline, or sooner its generation time once nothing of ours must render. */
  readonly #dueAt = new Map<string, number>();
  #lastReleaseSweep = Number.NEGATIVE_INFINITY;
  #lastEndSweep = Number.NEGATIVE_INFINITY;
  #draining = false;
  /** Tasks renders completed since the last report (see `#startRender`). */
  #completedByRenders = 0;
  /** Rendered tasks waiting for the next completion transaction (see `#commitCompletions`). */
  readonly #completions: PendingCompletion[] = [];
  /** The completion transactions in flight, one after the other, while renders keep ending. */
  #committing: Promise<void> | undefined;

  constructor(deps: TaskWorkerDependencies) {
    this.#deps = deps;
  }

  /** Renders in flight in this engine. */
  get activeRenders(): number {
    return this.#renders.size;
  }

  /**
   * First half of a tick: renew our leases, return crashed workers' tasks to
   * the queue, claim queued tasks while render slots are free and start them.
   */
  async startDue(now: number): Promise<Pick<TaskWorkReport, "claimed" | "rendersStarted" | "released">> {
    const report = { claimed: 0, rendersStarted: 0, released: 0 };
    await this.#renewLeases(now);
    if (this.#sweepDue(this.#lastReleaseSweep, now)) {
      report.released = await this.#releaseExpiredLeases(now);
      this.#lastReleaseSweep = now;
    }
    if (this.#draining) return report;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const slots = this.#deps.config.workerConcurrency - this.#renders.size;
      if (slots <= 0) break;
      const claimed = await this.#claim(now, slots);
      report.claimed += claimed.length;
      for (const task of claimed) {
        this.#held.set(task.id, task.leaseExpiresAt ?? now);
        this.#dueAt.set(task.id, needsRender(task) ? task.deadlineAt : endOf(task));
        if (needsRender(task)) {
          this.#startRender(task);
          report.rendersStarted++;
        }
      }
      // Tasks that need no render ([[timeout]], scenario failures, a video kept
      // from an earlier claim) took no slot: claim again to fill the slots.
      if (claimed.length < slots || claimed.every(needsRender)) break;
    }
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
    if (!this.#sweepDue(this.#lastEndSweep, now) && !this.#holdsDue(now)) return report;
    const { store, randomUUID } = this.#deps;
    const at = { now, randomUUID };
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await store.transaction((tx) => tx.listDueCompletions(now, BATCH));
      let ended = 0;
      for (const task of due) {
        if (task.finishAt === null || task.finishAt > task.deadlineAt) continue;
        // Fenced by the lease as listed: if another process took the task over meanwhile
        // (this one froze after the list), the end is theirs to write, not ours.
        const fenced = { ...at, ...leaseOf(task) };
        const fail = task.scenario.fail;
        if (fail) {
          if (await store.transaction((tx) => failTask(tx, task, fail, fenced))) report.failed++;
        } else if (task.videoKey !== null) {
          const video = await this.#videoOf(task, task.videoKey, now);
          if (await store.transaction((tx) => completeTask(tx, task, video, fenced))) report.completed++;
        }
        this.#forget(task.id);
        ended++;
      }
      if (due.length < BATCH || ended === 0) break;
    }
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const overdue = await store.transaction((tx) => tx.listOverdueTasks(now, BATCH));
      for (const task of overdue) {
        const fenced = { ...at, ...leaseOf(task) };
        if (await store.transaction((tx) => failTask(tx, task, "TIMEOUT", fenced))) report.timedOut++;
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

  /** Whether a task this engine holds is due to end (or past its deadline) by `now`. */
  #holdsDue(now: number): boolean {
    for (const dueAt of this.#dueAt.values()) if (dueAt <= now) return true;
    return false;
  }

  /** Resolves once no render started by this engine is in flight. */
  async idle(): Promise<void> {
    while (this.#renders.size > 0)
      await Promise.all([...this.#renders.values()].map((render) => render.promise));
  }

  /** Graceful stop: claim nothing more, abort renders, hand our tasks back to the queue. */
  async drain(): Promise<void> {
    this.#draining = true;
    for (const render of this.#renders.values()) render.controller.abort(new Error("engine draining"));
    await this.idle();
    const { store, workerId } = this.#deps;
    const held = [...this.#held.keys()];
    this.#held.clear();
    this.#dueAt.clear();
    await store.transaction(async (tx) => {
      for (const id of held) await tx.transitionTask(id, ["processing"], releasedPatch(), workerId);
    });
  }

  async #claim(now: number, limit: number): Promise<TaskRecord[]> {
    const { store, workerId, config } = this.#deps;
    // The claim is one statement: on PostgreSQL it runs in autocommit, one round trip.
    const claimed = await store.transaction(
      (tx) => tx.claimQueuedTasks(workerId, limit, now, now + config.leaseMs),
      { singleWrite: true },
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
   * Extends the leases of held tasks once half of their lease is used, the
   * way the webhook dispatcher does: renewing every lease on every tick wrote
   * each task in flight twenty times a second, for nothing. A lease lost
   * meanwhile (another worker took an expired one) shows here, or at the
   * compare-and-set that ends the task.
   */
  async #renewLeases(now: number) {
    const { store, workerId, config } = this.#deps;
    const due = [...this.#held].filter(([, expiresAt]) => expiresAt - now < config.leaseMs / 2);
    if (due.length === 0) return;
    const leaseExpiresAt = now + config.leaseMs;
    const lost = await store.transaction(async (tx) => {
      const lostIds: string[] = [];
      for (const [id] of due) {
        const renewed = await tx.transitionTask(id, ["processing"], { leaseExpiresAt }, workerId);
        if (!renewed) lostIds.push(id);
      }
      return lostIds;
    });
    for (const [id] of due) if (this.#held.has(id)) this.#held.set(id, leaseExpiresAt);
    for (const id of lost) this.#forget(id, "lease lost");
  }

  /**
   * Crashed or frozen workers' tasks back to the queue. Ours are never among them: the renewal
   * just before extended every lease we still hold, and one we lost is no longer ours.
   */
  #releaseExpiredLeases(now: number): Promise<number> {
    return this.#deps.store.transaction((tx) => tx.releaseExpiredLeases(now, BATCH), { singleWrite: true });
  }

  #startRender(task: TaskRecord) {
    const { renderer } = this.#deps;
    const controller = new AbortController();
    const job = { taskId: task.id, request: task.request, aspectRatio: task.aspectRatio };
    const promise = (async () => {
      try {
        let videoKey: string;
        try {
          ({ videoKey } = await renderer.render(job, controller.signal));
        } catch (error) {
          if (controller.signal.aborted) return;
          await this.#failRender(task, error);
          return;
        }
        if (controller.signal.aborted) return;
        try {
          await this.#recordRender(task, videoKey);
        } catch (error) {
          // Not the render's fault, so not GENERATION_FAILED: the store failed (PostgreSQL ended the
          // session of a process frozen meanwhile, a failover). The task is let go: its lease runs
          // out, and it is claimed and rendered again, here or elsewhere.
          this.#deps.config.logger.error?.("could not record a render", {
            taskId: task.id,
            error: String(error),
          });
          this.#forget(task.id);
        }
      } finally {
        this.#renders.delete(task.id);
        // Once half the slots are free: one claim then fills them all, rather than a tick per render.
        if (this.#renders.size <= this.#deps.config.workerConcurrency / 2) this.#deps.onRenderEnded?.();
      }
    })();
    this.#renders.set(task.id, { controller, promise });
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
      const won = await new Promise<boolean>((resolve, reject) => {
        this.#completions.push({ task, video, resolve, reject });
        this.#committing ??= this.#commitCompletions();
      });
      if (won) this.#completedByRenders++;
      // Lost otherwise (a lease taken over, a forced outcome): the video is not ours to record either.
      this.#forget(task.id);
      return;
    }
    const recorded = await store.transaction((tx) =>
      tx.transitionTask(task.id, ["processing"], { videoKey, updatedAt: now }, workerId),
    );
    // Ours to end when its generation time is over: the sweep runs for it then.
    if (recorded && this.#held.has(task.id)) this.#dueAt.set(task.id, endOf(task));
  }

  /**
   * Group commit: renders that end while a completion transaction is in flight
   * wait for it and then commit together, one BEGIN and COMMIT for them all
   * rather than per task. No timer: a lone completion commits at once, and a
   * batch is exactly what piled up during the previous commit. Each task is
   * still its own compare-and-set fenced by our lease, so each outcome is
   * written once; a batch that fails is tried again task by task, so one
   * task's error never costs the others their renders.
   */
  async #commitCompletions() {
    const { store, clock, workerId, randomUUID } = this.#deps;
    while (this.#completions.length > 0) {
      const batch = this.#completions.splice(0, BATCH);
      const context = { now: clock.now(), randomUUID, leaseOwner: workerId };
      try {
        // Without a callback among them, the batch is one UPDATE: atomic alone, no BEGIN or COMMIT needed.
        const singleWrite = batch.every((pending) => pending.task.callbackUrl === null);
        const won = await store.transaction((tx) => completeTasks(tx, batch, context), { singleWrite });
        for (const pending of batch) pending.resolve(won.has(pending.task.id));
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        for (const pending of batch) {
          await store
            .transaction((tx) => completeTask(tx, pending.task, pending.video, context))
            .then(pending.resolve, pending.reject);
        }
      }
    }
    this.#committing = undefined;
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
    await store
      .transaction((tx) =>
        failTask(tx, task, "GENERATION_FAILED", { now: clock.now(), randomUUID, leaseOwner: workerId }),
      )
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
    this.#held.delete(id);
    this.#dueAt.delete(id);
    const render = this.#renders.get(id);
    if (render && reason) render.controller.abort(new Error(reason));
  }
}

/** The lease a listed task had, as a compare-and-set condition (none for a queued task). */
function leaseOf(task: TaskRecord): { leaseOwner?: string } {
  return task.leaseOwner === null ? {} : { leaseOwner: task.leaseOwner };
}

/** When a task that needs no render of ours is due to end: its generation time, or its deadline if sooner. */
function endOf(task: TaskRecord): number {
  return Math.min(task.finishAt ?? task.deadlineAt, task.deadlineAt);
}

function needsRender(task: TaskRecord): boolean {
  return task.videoKey === null && !task.scenario.fail && !task.scenario.timeout;
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
