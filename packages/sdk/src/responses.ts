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

/** Expected `typeof` (or `null`) per field; built once, since status reads are the hot path. */
type FieldTypes = [field: string, types: string[]][];

function fieldTypes(fields: Record<string, string>): FieldTypes {
  return Object.entries(fields).map(([field, types]) => [field, types.split("|")]);
}

function firstIssue(record: Record<string, unknown>, fields: FieldTypes): string | undefined {
  for (const [field, types] of fields) {
    const value = record[field];
    const actual = value === null ? "null" : typeof value;
    if (!types.includes(actual)) return `${field}: expected ${types.join(" or ")}, got ${actual}`;
  }
  return undefined;
}

const createFields = fieldTypes({ success: "boolean", message: "string", task_id: "string" });
const statusFields = fieldTypes({
  status: "string",
  task_id: "string",
  message: "string",
  progress: "number|undefined",
  created_at: "string|undefined",
  updated_at: "string|undefined",
});
const urlField = fieldTypes({ video_url: "string" });
const nullUrlField = fieldTypes({ video_url: "null" });

/** Checks a create response. */
export function parseCreateTaskResponse(value: unknown): Parsed<CreateTaskResponse> {
  if (!isRecord(value)) return { issue: "expected an object" };
  const issue = firstIssue(value, createFields);
  if (issue) return { issue };
  return value.success === true
    ? { value: value as unknown as CreateTaskResponse }
    : { issue: "success: not true" };
}

/** Checks a status response; unknown statuses pass, as docs/api.md#task-status asks clients to tolerate them. */
export function parseTaskStatus(value: unknown): Parsed<TaskStatusResponse> {
  return isValidStatus(value) ? { value: value as unknown as TaskStatusResponse } : checkTaskStatus(value);
}

/** The check `parseTaskStatus` stands for, naming the first issue; exported for its tests. */
export function checkTaskStatus(value: unknown): Parsed<TaskStatusResponse> {
  if (!isRecord(value)) return { issue: "expected an object" };
  const issue =
    firstIssue(value, statusFields) ??
    (value.status === "completed" ? firstIssue(value, urlField) : undefined) ??
    (value.status === "failed" ? firstIssue(value, nullUrlField) : undefined);
  return issue ? { issue } : { value: value as unknown as TaskStatusResponse };
}

/**
 * The two rules of docs/api.md#task-status that no schema can state: the answer is about the task
 * asked for (the service lowercases the id), and it was not updated before it was created.
 */
export function checkStatusOf(
  { task_id, created_at, updated_at }: TaskStatusResponse,
  taskId: string,
): string | undefined {
  if (task_id !== taskId.toLowerCase()) return "task_id: not the task asked for";
  // Date.parse of a missing time is NaN, which compares false.
  if (Date.parse(updated_at as string) < Date.parse(created_at as string))
    return "updated_at: before created_at";
  return undefined;
}

/**
 * `checkTaskStatus` written out for the hot path (status reads): true exactly when that finds no
 * issue, which `responses.test.ts` proves over every combination of field values that matters.
 */
export function isValidStatus(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { status, task_id, message, progress, created_at, updated_at, video_url } = value as Record<
    string,
    unknown
  >;
  return (
    typeof status === "string" &&
    typeof task_id === "string" &&
    typeof message === "string" &&
    (progress === undefined || typeof progress === "number") &&
    (created_at === undefined || typeof created_at === "string") &&
    (updated_at === undefined || typeof updated_at === "string") &&
    (status === "completed" ? typeof video_url === "string" : status !== "failed" || video_url === null)
  );
}

/** Checks a webhook payload: success carries a URL, a failure carries `null`. */
export function parseWebhookPayload(value: unknown): Parsed<WebhookPayload> {
  if (!isRecord(value)) return { issue: "expected an object" };
  const issue = firstIssue(value, createFields) ?? firstIssue(value, value.success ? urlField : nullUrlField);
  return issue ? { issue } : { value: value as unknown as WebhookPayload };
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
