import type { Clock } from "../clock.js";
import type { RandomUUID } from "../ids.js";
import type { Store, TaskRecord } from "../ports.js";
import { type CompletedVideo, completeTask, completeTasks } from "./lifecycle.js";

/** A rendered task due to end, and the render waiting to hear whether its completion won. */
interface PendingCompletion {
  task: TaskRecord;
  video: CompletedVideo;
  resolve: (won: boolean) => void;
  reject: (error: unknown) => void;
}

export interface CompletionBatchDependencies {
  store: Store;
  clock: Clock;
  /** This engine's lease owner name: each completion is fenced by it. */
  workerId: string;
  /** Source of the webhook ids written when a task ends. */
  randomUUID: RandomUUID;
}

/** Completions per transaction, at most. */
const MAX_BATCH = 100;

/**
 * Group commit of completions: renders that end while a completion transaction is in flight
 * wait for it and then commit together, one BEGIN and COMMIT for them all rather than per task.
 * No timer: a lone completion commits at once, and a batch is exactly what piled up during the
 * previous commit. Each task is still its own compare-and-set fenced by our lease, so each
 * outcome is written once; a batch that fails is tried again task by task, so one task's error
 * never costs the others their renders.
 */
export class CompletionBatch {
  readonly #deps: CompletionBatchDependencies;
  /** Rendered tasks waiting for the next completion transaction. */
  readonly #pending: PendingCompletion[] = [];
  /** The completion transactions in flight, one after the other, while renders keep ending. */
  #committing: Promise<void> | undefined;

  constructor(deps: CompletionBatchDependencies) {
    this.#deps = deps;
  }

  /**
   * Completes a rendered task with the next batch; resolves true if this completion won, false
   * if it lost (a lease taken over, a forced outcome).
   */
  complete(task: TaskRecord, video: CompletedVideo): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#pending.push({ task, video, resolve, reject });
      this.#committing ??= this.#commit();
    });
  }

  async #commit() {
    const { store, clock, workerId, randomUUID } = this.#deps;
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH);
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
}
