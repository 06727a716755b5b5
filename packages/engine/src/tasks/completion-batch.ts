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
  /**
   * Whether a claim is about to go out that will carry the waiting completions (`carry`): a
   * completion then waits for it rather than starting a transaction of its own.
   */
  claimComing?: () => boolean;
}

/** A rendered task's completion as a claim carries it. */
export type CarriedCompletion = Pick<PendingCompletion, "task" | "video">;

/** Completions per transaction, at most. */
const MAX_BATCH = 100;

/**
 * Group commit of completions: renders that end while a completion transaction is in flight
 * wait for it and then commit together, one BEGIN and COMMIT for them all rather than per task.
 * No timer: a lone completion commits at once, and a batch is exactly what piled up during the
 * previous commit. Each task is still its own compare-and-set fenced by our lease, so each
 * outcome is written once; a batch that fails is tried again task by task, so one task's error
 * never costs the others their renders. While a backlog is drained, the worker's next claim
 * carries the waiting completions in its own statement instead (`carry`), so a batch of renders
 * costs one statement, not two.
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
      if (!this.#deps.claimComing?.()) this.flush();
    });
  }

  /** Starts a completion transaction for the completions waiting, unless one is in flight (it takes them next). */
  flush(): void {
    if (this.#pending.length > 0) this.#committing ??= this.#commit();
  }

  /**
   * Runs `claim` with the waiting completions that write no notification (no callback URL), up
   * to a batch, for it to write in its own statement: it resolves with the ids that won and what it
   * claimed. Each completion hears whether it won. The others go in a completion transaction as
   * before, and so do these should the claim fail.
   */
  async carry<Claimed>(
    claim: (
      completions: readonly CarriedCompletion[],
    ) => Promise<{ won: ReadonlySet<string>; claimed: Claimed }>,
  ): Promise<Claimed> {
    const carried: PendingCompletion[] = [];
    const others: PendingCompletion[] = [];
    for (const pending of this.#pending) {
      const carries = pending.task.callbackUrl === null && carried.length < MAX_BATCH;
      (carries ? carried : others).push(pending);
    }
    this.#pending.splice(0, this.#pending.length, ...others);
    this.flush();
    try {
      const { won, claimed } = await claim(carried);
      for (const pending of carried) pending.resolve(won.has(pending.task.id));
      return claimed;
    } catch (error) {
      this.#pending.unshift(...carried);
      this.flush();
      throw error;
    }
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
