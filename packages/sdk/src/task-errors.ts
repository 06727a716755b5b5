import { GenVideoError, type GenVideoErrorOptions, hasMarker, markError } from "./errors.js";
import type { FailedTaskStatus, FailureCode, TaskStatusResponse } from "./responses.js";

const taskFailedMarker = Symbol.for("genvideo.error.TaskFailedError");
const waitTimeoutMarker = Symbol.for("genvideo.error.WaitTimeoutError");

/**
 * The task finished without a video. `code` is the failure code: `UNSAFE_CONTENT`
 * (never refunded), `TIMEOUT` (ran past the 10-minute deadline, refunded) or
 * `GENERATION_FAILED` (a service fault, refunded).
 *
 * @example
 * ```ts
 * import { TaskFailedError } from "@genvideo/sdk";
 *
 * try {
 *   await client.pollUntilDone(taskId);
 * } catch (error) {
 *   if (TaskFailedError.isInstance(error) && error.code === "UNSAFE_CONTENT") askForAnotherPrompt();
 * }
 * ```
 */
export class TaskFailedError extends GenVideoError {
  override name: string = "TaskFailedError";
  /** UUID of the failed task. */
  readonly taskId: string;
  /** The failure code from the status `message`; a code this version does not know passes through. */
  readonly code: FailureCode | (string & {});
  /** The status response that reported the failure. */
  readonly task: FailedTaskStatus;

  constructor(task: FailedTaskStatus, options?: GenVideoErrorOptions) {
    super(`Task ${task.task_id} failed: ${task.message}`, options);
    this.taskId = task.task_id;
    this.code = task.message;
    this.task = task;
    markError(this, taskFailedMarker);
  }

  /** Whether `error` is a `TaskFailedError`, across realms. */
  static override isInstance(error: unknown): error is TaskFailedError {
    return hasMarker(error, taskFailedMarker);
  }
}

/**
 * The caller's own wait ran out; the task itself may still finish. Resume with
 * `client.pollUntilDone(error.taskId)`, or check `lastStatus` to decide.
 *
 * @example
 * ```ts
 * import { WaitTimeoutError } from "@genvideo/sdk";
 *
 * try {
 *   await client.pollUntilDone(taskId, { timeout: 60_000 });
 * } catch (error) {
 *   if (WaitTimeoutError.isInstance(error)) await queue.later(error.taskId, error.lastStatus?.progress);
 * }
 * ```
 */
export class WaitTimeoutError extends GenVideoError {
  override name: string = "WaitTimeoutError";
  /** UUID of the task that was being waited for. */
  readonly taskId: string;
  /** The wait's time budget that ran out, in milliseconds. */
  readonly timeout: number;
  /** The last status received, or `undefined` when no status arrived in time. */
  readonly lastStatus: TaskStatusResponse | undefined;

  constructor(
    taskId: string,
    timeout: number,
    lastStatus: TaskStatusResponse | undefined,
    options?: GenVideoErrorOptions,
  ) {
    super(
      `Gave up waiting for task ${taskId} after ${timeout} ms (last status: ${lastStatus?.status ?? "none"})`,
      options,
    );
    this.taskId = taskId;
    this.timeout = timeout;
    this.lastStatus = lastStatus;
    markError(this, waitTimeoutMarker);
  }

  /** Whether `error` is a `WaitTimeoutError`, across realms. */
  static override isInstance(error: unknown): error is WaitTimeoutError {
    return hasMarker(error, waitTimeoutMarker);
  }
}
