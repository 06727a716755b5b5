/**
 * The rules of the API contract as docs/api.md states them, one name each, with where the docs say
 * it and whether JSON Schema can state it (so that the OpenAPI document can, and tools reading it
 * must honour it). Written from the docs, not from @genvideo/schema: the checker is a second,
 * independent reading of the contract.
 */

const API_DOCS = "https://github.com/genvideo/genvideo/blob/main/docs/api.md";

export interface ContractRule {
  /** What the rule says, in a sentence. */
  says: string;
  /** The section of docs/api.md that states it. */
  docs: string;
  /**
   * Whether JSON Schema can state it (about one answer's body or headers alone). The others relate
   * an answer to its request, or two values to each other.
   */
  expressible: boolean;
}

const rule = (section: string, says: string, expressible = true): ContractRule => ({
  says,
  docs: `${API_DOCS}#${section}`,
  expressible,
});

export const CONTRACT_RULES = {
  "json-body": rule(
    "errors",
    "An API answer (and a video error) is a JSON object, sent as application/json.",
  ),
  "request-id-header": rule(
    "response-headers",
    "Every answer carries X-Request-Id: the client's plain id (1 to 128 of A-Z a-z 0-9 . _ : -) or req_<uuid>.",
  ),
  "error-body": rule(
    "errors",
    "An error answers { error, code, message }: error the status's reason phrase, code one of that status's codes, message a sentence.",
  ),
  "error-request-id": rule("errors", "A 5xx error body carries request_id, equal to X-Request-Id.", false),
  "create-error-success": rule("response", "An error of the create endpoint carries success: false."),
  "validation-issues": rule(
    "validation-errors",
    "A refused body (INVALID_REQUEST on create) lists every issue as { path, message }.",
  ),
  "auth-error": rule(
    "authentication",
    "A 401 answers exactly { error: Unauthorized, message } with one of the three messages, and WWW-Authenticate: Bearer.",
  ),
  "retry-after": rule("response-headers", "A 429, 409 or 503 carries Retry-After in whole seconds."),
  "allow-header": rule("errors", "A 405 carries Allow, listing the methods the path takes."),
  "create-response": rule("response", "A create answers { success: true, message: Task created, task_id }."),
  "task-id-format": rule("genvideo-api", "Task ids are UUID v4, in lower case."),
  "task-id-asked": rule(
    "task-status",
    "The status and webhook events of a task carry the task_id asked for.",
    false,
  ),
  "status-shape": rule(
    "task-status",
    "A status is { status, task_id, message }; status queued, processing, completed or failed.",
  ),
  "failure-code": rule("task-status", "A failed status's message is a failure code."),
  "video-url-by-status": rule(
    "task-status",
    "video_url is absent while queued or processing, a URL when completed, null when failed.",
  ),
  "url-format": rule("genvideo-api", "URLs in answers are absolute http(s) URLs."),
  "progress-range": rule(
    "task-status",
    "progress is a number from 0 to 99 until the task has completed, 100 once completed, 0 once failed.",
  ),
  "time-format": rule("genvideo-api", "Times are ISO 8601 in UTC."),
  "created-before-updated": rule("task-status", "created_at is never after updated_at.", false),
  "account-shape": rule(
    "account",
    "An account is { account_id, name, credits }: a UUID v4, a string, a whole number of credits, 0 or more.",
  ),
  "event-id-format": rule("webhook-events", "Webhook event ids are msg_ and 32 hex digits."),
  "event-state": rule("webhook-events", "A webhook event's state is pending, delivered or failed."),
  "attempt-count-range": rule(
    "webhook-events",
    "attempt_count is 0 to 4 while pending, 1 to 5 when delivered, 5 when failed.",
  ),
  "next-attempt-by-state": rule(
    "webhook-events",
    "next_attempt_at is the due time while pending, null otherwise.",
  ),
  "attempt-shape": rule(
    "webhook-events",
    "An attempt is { attempt (1 or more), started_at, duration_ms (0 or more), status_code, error }.",
  ),
  "attempt-status-code": rule(
    "webhook-events",
    "An attempt's status_code is an HTTP status (100 to 599) or null.",
  ),
  "attempt-error": rule(
    "webhook-events",
    "An attempt's error is null exactly when it succeeded (a 2xx); a failed attempt says why.",
  ),
  "delivered-has-success": rule("webhook-events", "A delivered event has a succeeded attempt."),
  "attempts-in-order": rule(
    "webhook-events",
    "Attempts are listed oldest first, their numbers rising.",
    false,
  ),
  "redelivery-response": rule(
    "webhook-events",
    "A redelivery answers 202 { success: true, message: Webhook redelivery queued, event_id }.",
  ),
  "video-headers": rule(
    "video-download",
    "A video answer is video/mp4 with Accept-Ranges, ETag, Last-Modified and Cache-Control; a 206 has Content-Range.",
  ),
  "video-error": rule(
    "video-download",
    "A video download error is { error, code, message }: 403 INVALID_SIGNATURE or URL_EXPIRED, 404 NOT_FOUND, 405 METHOD_NOT_ALLOWED, 416 RANGE_NOT_SATISFIABLE.",
  ),
} as const satisfies Record<string, ContractRule>;

export type ContractRuleName = keyof typeof CONTRACT_RULES;
