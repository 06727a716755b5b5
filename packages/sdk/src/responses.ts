import type { FailureCode } from "@genvideo/schema";

// The wire shapes, as DESIGN.md fixes them. Field names stay as on the wire (snake_case).
// Only types are shared with @genvideo/schema here: its zod schemas would add about 5 KB
// min+gzip to a bundle whose whole budget is 16 KB, so responses are checked by the small
// validators below, which `responses.test.ts` holds to the schema package's verdicts.

/** Body of a successful `POST /api/gen/generate`. */
export interface CreateTaskResponse {
  success: true;
  message: string;
  /** UUID of the new task. */
  task_id: string;
}

interface TaskStatusFields {
  /** UUID of the task. */
  task_id: string;
  /** Human-readable text; the failure code when `status` is `failed`. */
  message: string;
  /** Percentage done, 0 to 100, when the service reports it. */
  progress?: number;
  /** ISO 8601 time the task was created, when the service reports it. */
  created_at?: string;
  /** ISO 8601 time of the task's last change, when the service reports it. */
  updated_at?: string;
}

/** A task waiting in the queue. */
export interface QueuedTaskStatus extends TaskStatusFields {
  status: "queued";
}

/** A task whose video is being generated. */
export interface ProcessingTaskStatus extends TaskStatusFields {
  status: "processing";
}

/** A finished task: `video_url` downloads the video until the URL expires. */
export interface CompletedTaskStatus extends TaskStatusFields {
  status: "completed";
  video_url: string;
}

/** A failed task: `message` holds the failure code (`TIMEOUT` when it ran past its deadline). */
export interface FailedTaskStatus extends TaskStatusFields {
  status: "failed";
  message: FailureCode | (string & {});
  video_url: null;
}

/**
 * Body of `GET /api/gen/status/{task_id}`. A status this version does not know yet is
 * passed through as it came and counts as not finished.
 */
export type TaskStatusResponse =
  | QueuedTaskStatus
  | ProcessingTaskStatus
  | CompletedTaskStatus
  | FailedTaskStatus;

/** Body of a webhook notification (spec 2.4). */
export type WebhookPayload =
  | { success: true; message: string; task_id: string; video_url: string }
  | { success: false; message: FailureCode | (string & {}); task_id: string; video_url: null };

/** Fields of an error body the SDK reads; every one may be missing on a broken response. */
export interface ErrorBody {
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

function firstIssue(record: Record<string, unknown>, fields: Record<string, string>): string | undefined {
  for (const [field, type] of Object.entries(fields)) {
    const value = record[field];
    const actual = value === null ? "null" : typeof value;
    if (!type.split("|").includes(actual)) return `${field}: expected ${type}, got ${actual}`;
  }
  return undefined;
}

/** Checks a create response. */
export function parseCreateTaskResponse(value: unknown): Parsed<CreateTaskResponse> {
  if (!isRecord(value)) return { issue: "expected an object" };
  const issue = firstIssue(value, { success: "boolean", message: "string", task_id: "string" });
  if (issue) return { issue };
  return value.success === true
    ? { value: value as unknown as CreateTaskResponse }
    : { issue: "success: not true" };
}

/** Checks a status response; unknown statuses pass, as DESIGN.md asks clients to tolerate them. */
export function parseTaskStatus(value: unknown): Parsed<TaskStatusResponse> {
  if (!isRecord(value)) return { issue: "expected an object" };
  const issue =
    firstIssue(value, {
      status: "string",
      task_id: "string",
      message: "string",
      progress: "number|undefined",
      created_at: "string|undefined",
      updated_at: "string|undefined",
    }) ??
    (value.status === "completed" ? firstIssue(value, { video_url: "string" }) : undefined) ??
    (value.status === "failed" ? firstIssue(value, { video_url: "null" }) : undefined);
  return issue ? { issue } : { value: value as unknown as TaskStatusResponse };
}

/** Checks a webhook payload: success carries a URL, a failure carries `null`. */
export function parseWebhookPayload(value: unknown): Parsed<WebhookPayload> {
  if (!isRecord(value)) return { issue: "expected an object" };
  const issue =
    firstIssue(value, { success: "boolean", message: "string", task_id: "string" }) ??
    firstIssue(value, { video_url: value.success ? "string" : "null" });
  return issue ? { issue } : { value: value as unknown as WebhookPayload };
}

/** Reads whatever error fields are present; never fails, since an error must still be reported. */
export function readErrorBody(value: unknown): ErrorBody {
  if (!isRecord(value)) return {};
  const body: ErrorBody = {};
  for (const field of ["error", "code", "message", "request_id"] as const) {
    if (typeof value[field] === "string") body[field] = value[field];
  }
  if (Array.isArray(value.issues)) body.issues = value.issues as ErrorBody["issues"];
  return body;
}
