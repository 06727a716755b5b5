import { FAILURE_CATALOG, type FailureCode } from "@genvideo/schema";
import { refundTask } from "../credits/ledger.js";
import { type RandomUUID, webhookEventId } from "../ids.js";
import { elapsedSince, type TaskEndedEvent, type TaskOutcome } from "../observer.js";
import type { StoreTransaction, TaskRecord, TaskState } from "../ports.js";
import { completedPayload, failedPayload } from "../webhooks/payload.js";

/**
 * States a task can still leave: every other state is terminal.
 *
 * @example
 * ```ts
 * await tx.transitionTask(taskId, ACTIVE_STATES, { progress: 50 });
 * ```
 */
export const ACTIVE_STATES: readonly ["queued", "processing"] = ["queued", "processing"];

/** When a terminal transition happens, where the ids it writes come from, and (for a worker) whose lease it needs. */
export interface TransitionContext {
  now: number;
  randomUUID: RandomUUID;
  /** Only while the task is still leased by this owner. */
  leaseOwner?: string;
}

/**
 * The outbox: the notification is written in the same transaction as the
 * terminal state, so a crash can neither lose it nor send one for a state
 * that didn't commit.
 */
async function enqueueNotification(
  tx: StoreTransaction,
  task: TaskRecord,
  payload: string,
  { now, randomUUID }: TransitionContext,
) {
  if (task.callbackUrl === null) return;
  await tx.insertWebhookEvent({
    id: webhookEventId(randomUUID),
    taskId: task.id,
    accountId: task.accountId,
    url: task.callbackUrl,
    payload,
    state: "pending",
    attemptCount: 0,
    nextAttemptAt: now,
    createdAt: now,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...(task.traceParent ? { traceParent: task.traceParent } : {}),
  });
}

/** What an observer hears when `task` ended with `outcome` at `now` (see `EngineObserver.taskEnded`). */
export function taskEndedEvent(task: TaskRecord, outcome: TaskOutcome, now: number): TaskEndedEvent {
  return {
    outcome,
    modelType: task.modelType,
    endToEndMs: Math.max(0, now - task.createdAt),
    generationMs: elapsedSince(task.startedAt, now),
    refunded: outcome !== "completed" && FAILURE_CATALOG[outcome].refunded,
  };
}

/**
 * Ends a task as failed, if it is still active (and, with `leaseOwner`, still
 * ours). Exactly one terminal transition wins; only the winner refunds and
 * notifies. Returns whether this call won.
 */
export async function failTask(
  tx: StoreTransaction,
  task: TaskRecord,
  code: FailureCode,
  context: TransitionContext,
): Promise<boolean> {
  const { now, leaseOwner } = context;
  const refund = FAILURE_CATALOG[code].refunded;
  const won = await tx.transitionTask(
    task.id,
    ACTIVE_STATES,
    {
      state: "failed",
      failureCode: code,
      // No video was made: a failed task never shows a nearly-full bar (a [[timeout]] crept to 99).
      progress: 0,
      updatedAt: now,
      completedAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      refundedAt: refund ? now : null,
    },
    leaseOwner,
  );
  if (!won) return false;
  if (refund) await refundTask(tx, task.accountId, task.id, task.cost, now);
  await enqueueNotification(tx, task, failedPayload(task.id, code), context);
  return true;
}

/**
 * Ends a task as completed with its video (the key is stored, the signed URL
 * goes into the notification), if it is still in one of `from` (default
 * processing: the worker completes only what it holds) and, with
 * `leaseOwner`, still leased by that owner. A task without a callback URL
 * needs no signed URL (`url: null`): status reads sign their own.
 */
export async function completeTask(
  tx: StoreTransaction,
  task: TaskRecord,
  video: CompletedVideo,
  context: TransitionContext & { from?: readonly TaskState[] },
): Promise<boolean> {
  const { now, from = ["processing"], leaseOwner } = context;
  const won = await tx.transitionTask(
    task.id,
    from,
    { ...completedPatch(now), videoKey: video.key },
    leaseOwner,
  );
  if (won) await notifyCompleted(tx, task, video, context);
  return won;
}

/**
 * `completeTask` for renders that ended together, in one store call: each task
 * is still its own compare-and-set (processing and, with `leaseOwner`, leased
 * by that owner), and only the winners notify. Returns the ids that won.
 */
export async function completeTasks(
  tx: StoreTransaction,
  completions: readonly { task: TaskRecord; video: CompletedVideo }[],
  context: TransitionContext,
): Promise<Set<string>> {
  const { now, leaseOwner } = context;
  const videos = completions.map(({ task, video }) => ({ id: task.id, videoKey: video.key }));
  const won = new Set(await tx.transitionTasks(videos, ["processing"], completedPatch(now), leaseOwner));
  for (const { task, video } of completions) {
    if (won.has(task.id)) await notifyCompleted(tx, task, video, context);
  }
  return won;
}

/** What a worker's claim asks for (see `StoreTransaction.claimQueuedTasks`). */
export interface ClaimRequest {
  owner: string;
  limit: number;
  now: number;
  leaseExpiresAt: number;
  renderLimit: number;
}

/**
 * `completeTasks` in the statement of the owner's next claim (`transitionAndClaimTasks`), for
 * completions that write no notification (no callback URL): each task is still its own
 * compare-and-set fenced by the claim's owner. Returns the ids that won and the tasks claimed.
 */
export async function completeTasksAndClaim(
  tx: StoreTransaction,
  completions: readonly { task: TaskRecord; video: CompletedVideo }[],
  claim: ClaimRequest,
): Promise<{ won: Set<string>; claimed: TaskRecord[] }> {
  if (completions.some(({ task }) => task.callbackUrl !== null))
    throw new Error("a completion with a callback URL writes its notification: complete it on its own");
  const { owner, limit, now, leaseExpiresAt, renderLimit } = claim;
  const tasks = completions.map(({ task, video }) => ({ id: task.id, videoKey: video.key }));
  const ending = { tasks, from: ["processing"] as const, patch: completedPatch(now) };
  const { transitioned, claimed } = await tx.transitionAndClaimTasks(
    ending,
    owner,
    limit,
    now,
    leaseExpiresAt,
    renderLimit,
  );
  return { won: new Set(transitioned), claimed };
}

/** A completed task's video: the stored key, and the signed URL its notification carries (null: no callback). */
export interface CompletedVideo {
  key: string;
  url: string | null;
}

function completedPatch(now: number) {
  return {
    state: "completed" as const,
    progress: 100,
    updatedAt: now,
    completedAt: now,
    leaseOwner: null,
    leaseExpiresAt: null,
  };
}

async function notifyCompleted(
  tx: StoreTransaction,
  task: TaskRecord,
  video: CompletedVideo,
  context: TransitionContext,
): Promise<void> {
  if (task.callbackUrl === null) return;
  if (video.url === null)
    throw new Error(`task ${task.id} has a callback URL: its completion needs the video's signed URL`);
  await enqueueNotification(tx, task, completedPayload(task.id, video.url), context);
}
