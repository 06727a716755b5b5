import { API_PATHS } from "@genvideo/schema";
import { isBrowser, readEnvironment } from "./environment.js";
import { GenVideoError } from "./errors.js";
import { ResponseValidationError } from "./request-errors.js";
import {
  type CompletedTaskStatus,
  type CreateTaskResponse,
  type GenerationRequestInput,
  parseCreateTaskResponse,
  parseTaskStatus,
  type TaskStatusResponse,
} from "./responses.js";
import { createTransport, type Transport } from "./transport.js";
import { type StatusReading, type WaitOptions, waitForTask } from "./wait-for-task.js";

// Request paths resolve against the base URL (which may carry a path), so they drop the leading slash.
const createTaskPath = API_PATHS.createTask.slice(1);
/** The status path up to its `{task_id}`, which ends it. */
const taskStatusPrefix = API_PATHS.taskStatus.slice(1, -"{task_id}".length);

/**
 * Settings of a client. Durations are in milliseconds.
 *
 * @example
 * ```ts
 * const options: GenVideoOptions = { baseUrl: "http://127.0.0.1:8787", timeout: 30_000, maxRetries: 4 };
 * ```
 */
export interface GenVideoOptions {
  /** Bearer API key (`gen_sk_...`). Default: the `GENVIDEO_API_KEY` environment variable. */
  apiKey?: string | undefined;
  /** Where the service lives, such as `http://127.0.0.1:8787`. Default: `GENVIDEO_BASE_URL`. */
  baseUrl?: string | URL | undefined;
  /** Longest one call may take, its retries and their pauses included. Default 60000. */
  timeout?: number | undefined;
  /** Further attempts after a retryable failure. Default 2; 0 turns retries off. */
  maxRetries?: number | undefined;
  /** A `fetch` to use instead of the global one: a proxy agent, a test double. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Headers added to every request. */
  headers?: HeadersInit | undefined;
  /** Allows running in a browser page, where every visitor can read the key. Default false. */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/**
 * Per-call settings.
 *
 * @example
 * ```ts
 * await client.getStatus(taskId, { timeout: 5_000, signal: request.signal });
 * ```
 */
export interface RequestOptions {
  /** Aborts the call, including a pause between retries; it then rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Longest this call may take, retries included; overrides the client's `timeout`. */
  timeout?: number | undefined;
}

/**
 * Settings of `createTask`.
 *
 * @example
 * ```ts
 * await client.createTask({ prompt: "a fox" }, { idempotencyKey: `job-${job.id}`, timeout: 120_000 });
 * ```
 */
export interface CreateTaskOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`: the service answers a repeat of the same key and body with the
   * first answer, so a retry never creates a second task or charge. Default: a fresh UUID per
   * call, reused by that call's retries. `false` sends none; the create is then retried only when
   * the runtime proves the request never left (connection refused, DNS failure).
   */
  idempotencyKey?: string | false | undefined;
}

/**
 * Settings of `generate`: how to create, then how to wait.
 *
 * @example
 * ```ts
 * await client.generate({ prompt: "a fox" }, { idempotencyKey: `job-${job.id}`, timeout: 11 * 60_000 });
 * ```
 */
export interface GenerateOptions extends WaitOptions {
  /** As in {@link CreateTaskOptions.idempotencyKey}. */
  idempotencyKey?: string | false | undefined;
}

/**
 * Client of the genvideo API. One instance per API key; it is safe to share between requests.
 *
 * @example
 * ```ts
 * import { GenVideo } from "@genvideo/sdk";
 *
 * const client = new GenVideo(); // GENVIDEO_API_KEY and GENVIDEO_BASE_URL from the environment
 * const video = await client.generate({ prompt: "a red fox running through snow" });
 * console.log(video.video_url);
 * ```
 */
export class GenVideo {
  readonly #transport: Transport;
  readonly #timeout: number;

  constructor(options: GenVideoOptions = {}) {
    if (isBrowser() && !options.dangerouslyAllowBrowser) {
      throw new GenVideoError(
        "GenVideo refuses to run in a browser: the API key would be readable by every visitor. " +
          "Call the API from your server, or pass dangerouslyAllowBrowser: true if the key is scoped for it.",
      );
    }
    const apiKey = options.apiKey ?? readEnvironment("GENVIDEO_API_KEY");
    if (!apiKey) throw new GenVideoError("No API key: pass { apiKey } or set GENVIDEO_API_KEY.");
    const baseUrl = options.baseUrl ?? readEnvironment("GENVIDEO_BASE_URL");
    if (!baseUrl) throw new GenVideoError("No base URL: pass { baseUrl } or set GENVIDEO_BASE_URL.");
    this.#timeout = options.timeout ?? 60_000;
    this.#transport = createTransport({
      // A trailing slash keeps a base path (`https://host/v1/`) when request paths resolve against it.
      baseUrl: String(baseUrl).replace(/\/*$/, "/"),
      apiKey,
      timeout: this.#timeout,
      maxRetries: options.maxRetries ?? 2,
      fetch: options.fetch,
      headers: options.headers,
    });
  }

  /**
   * Creates a generation task and returns at once with its id; the video is made asynchronously.
   * Sends an `Idempotency-Key` so that its retries can never create a second task.
   *
   * @example
   * ```ts
   * const { task_id } = await client.createTask(
   *   { prompt: "waves at dusk", model_type: "gen-3", callback_url: "https://example.com/hooks/genvideo" },
   *   { idempotencyKey: `order-${orderId}` },
   * );
   * ```
   */
  async createTask(
    request: GenerationRequestInput,
    options: CreateTaskOptions = {},
  ): Promise<CreateTaskResponse> {
    const { idempotencyKey = crypto.randomUUID(), signal, timeout } = options;
    const { data, requestId } = await this.#transport({
      method: "POST",
      path: createTaskPath,
      json: request,
      idempotencyKey: idempotencyKey || undefined,
      signal,
      timeout,
    });
    const parsed = parseCreateTaskResponse(data);
    if (parsed.issue !== undefined) throw new ResponseValidationError(parsed.issue, data, { requestId });
    return parsed.value;
  }

  /**
   * Reads a task's status once.
   *
   * @example
   * ```ts
   * const status = await client.getStatus(taskId);
   * if (status.status === "completed") console.log(status.video_url);
   * ```
   */
  async getStatus(taskId: string, options: RequestOptions = {}): Promise<TaskStatusResponse> {
    return (await this.#readStatus(taskId, options)).status;
  }

  /**
   * Waits until the task completes and returns its final status; rejects with `TaskFailedError`
   * when it fails (`TIMEOUT` included) and with `WaitTimeoutError` when `timeout` runs out first.
   * Pauses grow from `interval` to `maxInterval` with jitter and respect `Retry-After`.
   *
   * @example
   * ```ts
   * const done = await client.pollUntilDone(task, {
   *   timeout: 5 * 60_000,
   *   signal: AbortSignal.timeout(6 * 60_000),
   *   onProgress: (status) => console.log(status.status, status.progress),
   * });
   * console.log(done.video_url);
   * ```
   */
  async pollUntilDone(
    task: string | Pick<CreateTaskResponse, "task_id">,
    options: WaitOptions = {},
  ): Promise<CompletedTaskStatus> {
    const taskId = typeof task === "string" ? task : task.task_id;
    return waitForTask(taskId, (request) => this.#readStatus(taskId, request), this.#timeout, options);
  }

  /**
   * Creates a task, then waits for it: `createTask` followed by `pollUntilDone`. The `signal`
   * covers both; `timeout` is the wait's.
   *
   * @example
   * ```ts
   * const video = await client.generate(
   *   { prompt: "a paper boat on a rainy street", aspect_ratio: "9:16" },
   *   { timeout: 11 * 60_000, onProgress: (status) => console.log(status.status) },
   * );
   * ```
   */
  async generate(
    request: GenerationRequestInput,
    options: GenerateOptions = {},
  ): Promise<CompletedTaskStatus> {
    const created = await this.createTask(request, {
      idempotencyKey: options.idempotencyKey,
      signal: options.signal,
    });
    return this.pollUntilDone(created, options);
  }

  async #readStatus(taskId: string, options: RequestOptions): Promise<StatusReading> {
    const { data, headers, requestId } = await this.#transport({
      method: "GET",
      path: taskStatusPrefix + encodeURIComponent(taskId),
      signal: options.signal,
      timeout: options.timeout,
    });
    const parsed = parseTaskStatus(data, taskId);
    if (parsed.issue !== undefined) throw new ResponseValidationError(parsed.issue, data, { requestId });
    return { status: parsed.value, headers, requestId };
  }
}
