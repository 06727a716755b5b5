import { TASK_DEADLINE_MS } from "@genvideo/schema";
import { RateLimitError } from "./http-errors.js";
import { RequestTimeoutError } from "./request-errors.js";
import type { CompletedTaskStatus, TaskStatusResponse } from "./responses.js";
import { TaskFailedError, WaitTimeoutError } from "./task-errors.js";
import { maxRetryAfter, readRetryAfter } from "./transport.js";

/**
 * How long and how often to wait for a task. Durations are in milliseconds.
 *
 * @example
 * ```ts
 * const wait: WaitOptions = { timeout: 5 * 60_000, interval: 1_000, onProgress: (status) => log(status.status) };
 * await client.pollUntilDone(taskId, wait);
 * ```
 */
export interface WaitOptions {
  /** Longest the whole wait may take. Default 12 minutes: the task deadline (10) plus slack. */
  timeout?: number;
  /** First pause between two status reads. Default 2000. */
  interval?: number;
  /** Longest pause between two status reads; pauses grow by half each time up to it. Default 10000. */
  maxInterval?: number;
  /** Ends the wait, including a pause in progress; the wait then rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Called with the first status and then whenever status, message or progress changes. */
  onProgress?: (status: TaskStatusResponse) => void;
}

/** One status read with the headers that came with it. */
export interface StatusReading {
  status: TaskStatusResponse;
  headers: Headers;
  requestId: string | undefined;
}

/** Reads the status once, within `timeout` milliseconds. */
export type ReadStatus = (options: {
  signal: AbortSignal | undefined;
  timeout: number;
}) => Promise<StatusReading>;

/** Resolves after `milliseconds`, or rejects with the signal's reason as soon as it aborts. */
function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Reads the status until the task completes (resolves) or fails (rejects with `TaskFailedError`).
 * Statuses it does not know count as not finished. Only `completed` and `failed` end the wait, so a
 * new intermediate status in the service never makes a client stop early.
 */
export async function waitForTask(
  taskId: string,
  readStatus: ReadStatus,
  requestTimeout: number,
  options: WaitOptions = {},
): Promise<CompletedTaskStatus> {
  const {
    timeout = TASK_DEADLINE_MS + 2 * 60_000,
    interval = 2000,
    maxInterval = 10_000,
    signal,
    onProgress,
  } = options;
  const deadline = Date.now() + timeout;
  let pause = Math.min(interval, maxInterval);
  let lastStatus: TaskStatusResponse | undefined;
  let lastRequestId: string | undefined;
  let lastSeen = "";
  const giveUp = (cause?: unknown) =>
    new WaitTimeoutError(taskId, timeout, lastStatus, { cause, requestId: lastRequestId });

  for (;;) {
    signal?.throwIfAborted();
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw giveUp();
    let serverWait = 0;
    try {
      const reading = await readStatus({ signal, timeout: Math.min(requestTimeout, remaining) });
      const { status } = reading;
      lastStatus = status;
      lastRequestId = reading.requestId;
      const seen = `${status.status}\n${status.message}\n${status.progress}`;
      if (seen !== lastSeen) {
        lastSeen = seen;
        onProgress?.(status);
      }
      if (status.status === "completed") return status;
      if (status.status === "failed") throw new TaskFailedError(status, { requestId: reading.requestId });
      serverWait = readRetryAfter(reading.headers) ?? 0;
    } catch (error) {
      // The status read already retried; a 429 that outlasted those retries asks for a longer pause,
      // and a read cut short by the wait's own deadline is the wait timing out.
      if (RateLimitError.isInstance(error)) serverWait = error.retryAfter ?? pause;
      else if (RequestTimeoutError.isInstance(error) && Date.now() >= deadline) throw giveUp(error);
      else throw error;
    }
    const jittered = pause * (0.8 + Math.random() * 0.2);
    const wait = Math.max(jittered, Math.min(serverWait, maxRetryAfter));
    const left = deadline - Date.now();
    if (left <= 0) throw giveUp();
    await sleep(Math.min(wait, left), signal);
    pause = Math.min(maxInterval, pause * 1.5);
  }
}
