import type {
  CreateTaskResponse as SchemaCreateTaskResponse,
  FailureCode as SchemaFailureCode,
  GenerationRequestInput as SchemaGenerationRequestInput,
  TaskStatusResponse as SchemaTaskStatusResponse,
  WebhookPayload as SchemaWebhookPayload,
} from "@genvideo/schema";

// Types come from @genvideo/schema; field names stay as on the wire (snake_case). Its zod schemas
// are not used at run time: they would add about 5 KB min+gzip to a bundle whose whole budget is
// 16 KB, and they refuse statuses and failure codes a newer service may add, which
// docs/api.md#task-status asks clients to tolerate. The small validators below check what the SDK
// relies on; `responses.test.ts` holds them to the schema package's verdicts.

/**
 * Body of a create request: text (`prompt`), frame-to-frame (`start_frame` and `end_frame`) or
 * reference images (`reference_images`, 1 to 4), each with optional `model_type`, `aspect_ratio`
 * and `callback_url`. Images are `data:image/(jpeg|png|webp);base64,...` URIs.
 *
 * @example
 * ```ts
 * const request: GenerationRequestInput = { prompt: "a dog", reference_images: [dogPhoto], aspect_ratio: "1:1" };
 * ```
 */
export type GenerationRequestInput = SchemaGenerationRequestInput;

/**
 * A code a failed task carries: `UNSAFE_CONTENT`, `TIMEOUT` or `GENERATION_FAILED`.
 *
 * @example
 * ```ts
 * const refunded = (code: FailureCode) => code !== "UNSAFE_CONTENT";
 * ```
 */
export type FailureCode = SchemaFailureCode;

/**
 * Body of a successful create: `{ success: true, message, task_id }`.
 *
 * @example
 * ```ts
 * const created: CreateTaskResponse = await client.createTask({ prompt: "a fox" });
 * await client.pollUntilDone(created);
 * ```
 */
export type CreateTaskResponse = SchemaCreateTaskResponse;

/**
 * Body of a status read, one shape per `status`: `video_url` is absent while queued or processing,
 * a URL when completed and `null` when failed (`message` then holds the failure code).
 *
 * @example
 * ```ts
 * const status: TaskStatusResponse = await client.getStatus(taskId);
 * if (status.status === "completed") console.log(status.video_url);
 * ```
 */
export type TaskStatusResponse = SchemaTaskStatusResponse;

/**
 * Body of a webhook: `success` true with the video URL, or false with the failure code and `null`.
 *
 * @example
 * ```ts
 * const payload: WebhookPayload = await verifyWebhook(request, secret);
 * if (!payload.success) console.log(payload.message); // "UNSAFE_CONTENT", "TIMEOUT", ...
 * ```
 */
export type WebhookPayload = SchemaWebhookPayload;

/**
 * A task waiting in the queue.
 *
 * @example
 * ```ts
 * if (status.status === "queued") showSpinner("waiting for a slot");
 * ```
 */
export type QueuedTaskStatus = Extract<TaskStatusResponse, { status: "queued" }>;
/**
 * A task whose video is being generated; `progress` (0 to 100) when the service reports it.
 *
 * @example
 * ```ts
 * if (status.status === "processing") showProgress(status.progress ?? 0);
 * ```
 */
export type ProcessingTaskStatus = Extract<TaskStatusResponse, { status: "processing" }>;
/**
 * A finished task: `video_url` downloads the video until the URL expires.
 *
 * @example
 * ```ts
 * const done: CompletedTaskStatus = await client.pollUntilDone(taskId);
 * const video = await fetch(done.video_url);
 * ```
 */
export type CompletedTaskStatus = Extract<TaskStatusResponse, { status: "completed" }>;
/**
 * A failed task: `message` holds the failure code (`TIMEOUT` when it ran past its deadline).
 *
 * @example
 * ```ts
 * if (status.status === "failed" && status.message === "TIMEOUT") resubmit();
 * ```
 */
export type FailedTaskStatus = Extract<TaskStatusResponse, { status: "failed" }>;

/**
 * Fields of an error body the SDK reads; every one may be missing on a broken response.
 *
 * @example
 * ```ts
 * if (BadRequestError.isInstance(error)) for (const issue of error.body.issues ?? []) console.log(issue.path);
 * ```
 */
export interface HttpErrorBody {
  error?: string;
  code?: string;
  message?: string;
  request_id?: string;
  issues?: { path: string; message: string }[];
}

type Parsed<T> = { value: T; issue?: undefined } | { value?: undefined; issue: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a field holds: its `typeof`, or `null`. */
type Kind = "string" | "number" | "boolean" | "null" | "undefined";

/**
 * The issue when `field`'s `value` is neither `kind` nor `orKind`, as `field: expected string, got
 * number`. Written out field by field below rather than looped over a table: status reads are the
 * hot path, and a valid status then costs a few comparisons.
 */
function kindIssue(field: string, value: unknown, kind: Kind, orKind?: Kind): string | undefined {
  const actual = value === null ? "null" : typeof value;
  return actual === kind || actual === orKind
    ? undefined
    : `${field}: expected ${orKind ? `${kind} or ${orKind}` : kind}, got ${actual}`;
}

/** `value` checked as a record by `check`, which names the first issue. */
function parsed<T>(
  value: unknown,
  check: (record: Record<string, unknown>) => string | undefined,
): Parsed<T> {
  const issue = isRecord(value) ? check(value) : "expected an object";
  return issue ? { issue } : { value: value as T };
}

// The fields a create answer and a webhook share.
const createIssue = ({ success, message, task_id }: Record<string, unknown>): string | undefined =>
  kindIssue("success", success, "boolean") ??
  kindIssue("message", message, "string") ??
  kindIssue("task_id", task_id, "string");

/** Checks a create response. */
export function parseCreateTaskResponse(value: unknown): Parsed<CreateTaskResponse> {
  return parsed(
    value,
    (record) => createIssue(record) ?? (record.success === true ? undefined : "success: not true"),
  );
}

/**
 * Checks the status of task `taskId`. Unknown statuses pass, as docs/api.md#task-status asks
 * clients to tolerate them. Past the types, the two rules of that section no schema can state:
 * the answer is about the task asked for (the service lowercases the id), and it was not updated
 * before it was created.
 */
export function parseTaskStatus(value: unknown, taskId: string): Parsed<TaskStatusResponse> {
  return parsed(
    value,
    ({ status, task_id, message, progress, created_at, updated_at, video_url }) =>
      kindIssue("status", status, "string") ??
      kindIssue("task_id", task_id, "string") ??
      kindIssue("message", message, "string") ??
      kindIssue("progress", progress, "number", "undefined") ??
      kindIssue("created_at", created_at, "string", "undefined") ??
      kindIssue("updated_at", updated_at, "string", "undefined") ??
      (status === "completed"
        ? kindIssue("video_url", video_url, "string")
        : status === "failed"
          ? kindIssue("video_url", video_url, "null")
          : undefined) ??
      (task_id !== taskId.toLowerCase()
        ? "task_id: not the task asked for"
        : // Date.parse of a missing time is NaN, which compares false.
          Date.parse(updated_at as string) < Date.parse(created_at as string)
          ? "updated_at: before created_at"
          : undefined),
  );
}

/** Checks a webhook payload: success carries a URL, a failure carries `null`. */
export function parseWebhookPayload(value: unknown): Parsed<WebhookPayload> {
  return parsed(
    value,
    (record) =>
      createIssue(record) ?? kindIssue("video_url", record.video_url, record.success ? "string" : "null"),
  );
}

/** Reads whatever error fields are present; never fails, since an error must still be reported. */
export function readErrorBody(value: unknown): HttpErrorBody {
  if (!isRecord(value)) return {};
  const body: HttpErrorBody = {};
  for (const field of ["error", "code", "message", "request_id"] as const) {
    if (typeof value[field] === "string") body[field] = value[field];
  }
  if (Array.isArray(value.issues)) body.issues = value.issues as HttpErrorBody["issues"];
  return body;
}
