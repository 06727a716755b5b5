import type { FinishFailureCode } from "@genvideo/schema";
import type { Clock } from "../clock.js";
import type { RandomUUID } from "../ids.js";
import type { Renderer, Store, TaskRecord, VideoStorage } from "../ports.js";
import { ACTIVE_STATES, completeTask, failTask } from "./lifecycle.js";

/** How `engine.forceOutcome()` ends a task: completed with its video, failed with a code, or timed out. */
export type ForcedOutcome = { complete: true } | { fail: FinishFailureCode } | { timeout: true };

const FORCE_OUTCOME_ERROR = Symbol.for("genvideo.engine.ForceOutcomeError");

/** Why an outcome could not be forced: no such task, or it has already ended. */
export class ForceOutcomeError extends Error {
  override name = "ForceOutcomeError";
  readonly reason: "not-found" | "already-ended";
  readonly taskId: string;

  constructor(taskId: string, reason: "not-found" | "already-ended", message: string) {
    super(message);
    // A symbol brand instead of instanceof: it survives duplicate copies of this package.
    Object.defineProperty(this, FORCE_OUTCOME_ERROR, { value: true });
    this.taskId = taskId;
    this.reason = reason;
  }

  /** True for a ForceOutcomeError from any copy of this package (cross-realm safe). */
  static isInstance(value: unknown): value is ForceOutcomeError {
    return typeof value === "object" && value !== null && FORCE_OUTCOME_ERROR in value;
  }
}

export interface ForceOutcomeDependencies {
  store: Store;
  clock: Clock;
  renderer: Renderer;
  videoStorage: VideoStorage;
  randomUUID: RandomUUID;
}

function notFound(taskId: string): ForceOutcomeError {
  return new ForceOutcomeError(taskId, "not-found", `There is no task ${taskId}`);
}

function alreadyEnded(task: TaskRecord): ForceOutcomeError {
  const detail = task.failureCode ? ` (${task.failureCode})` : "";
  return new ForceOutcomeError(
    task.id,
    "already-ended",
    `Task ${task.id} has already ${task.state}${detail}; only a queued or processing task can be ended`,
  );
}

function isActive(task: TaskRecord): boolean {
  return (ACTIVE_STATES as readonly string[]).includes(task.state);
}

/**
 * Ends an active task now, through the same transitions the worker uses: the
 * compare-and-set that lets exactly one terminal state win, the refund rules
 * (`TIMEOUT` and `GENERATION_FAILED` refund, `UNSAFE_CONTENT` does not) and
 * the webhook outbox. A completion needs a video: a task without one is
 * rendered first. Returns the ended task.
 */
export async function forceTaskOutcome(
  deps: ForceOutcomeDependencies,
  taskId: string,
  outcome: ForcedOutcome,
): Promise<TaskRecord> {
  const { store, clock, randomUUID } = deps;
  const before = await store.transaction((tx) => tx.getTask(taskId));
  if (!before) throw notFound(taskId);
  if (!isActive(before)) throw alreadyEnded(before);
  const videoKey = "complete" in outcome ? await videoOf(deps, before) : null;
  return store.transaction(async (tx) => {
    // Read again inside the transaction: the task may have ended while its video was made.
    const task = await tx.getTask(taskId);
    if (!task) throw notFound(taskId);
    const context = { now: clock.now(), randomUUID };
    let won: boolean;
    if (videoKey !== null) {
      const url = await deps.videoStorage.signedUrl(videoKey, task.id, context.now);
      won = await completeTask(tx, task, { key: videoKey, url }, { ...context, from: ACTIVE_STATES });
    } else {
      const code = "fail" in outcome ? outcome.fail : "TIMEOUT";
      won = await failTask(tx, task, code, context);
    }
    if (!won) throw alreadyEnded(task);
    return (await tx.getTask(taskId))!;
  });
}

async function videoOf(deps: ForceOutcomeDependencies, task: TaskRecord): Promise<string> {
  if (task.videoKey !== null) return task.videoKey;
  const job = { taskId: task.id, request: task.request, aspectRatio: task.aspectRatio };
  const { videoKey } = await deps.renderer.render(job, new AbortController().signal);
  return videoKey;
}
