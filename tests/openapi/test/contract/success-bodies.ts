/** The success answers of docs/api.md, route by route. */
import type { Report, Route } from "./check.js";
import {
  FAILURE_CODES,
  isEventId,
  isHttpUrl,
  isObject,
  isUtcTime,
  isUuidV4,
  isWholeNumber,
  type Json,
} from "./values.js";

const show = (value: unknown) => JSON.stringify(value);

export function checkSuccessBody(route: Route, status: number, body: Json, report: Report): void {
  switch (route.name) {
    case "create":
      report(
        "create-response",
        status === 200 && body.success === true && body.message === "Task created",
        `${status} ${show({ success: body.success, message: body.message })}`,
      );
      report("task-id-format", isUuidV4(body.task_id), `task_id ${show(body.task_id)}`);
      return;
    case "status":
      checkStatus(route.taskId, body, report);
      return;
    case "account":
      report(
        "account-shape",
        isUuidV4(body.account_id) && typeof body.name === "string" && isWholeNumber(body.credits, 0),
        show(body),
      );
      return;
    case "webhook-events":
      checkWebhookEvents(route.taskId, body, report);
      return;
    case "redelivery":
      report(
        "redelivery-response",
        status === 202 && body.success === true && body.message === "Webhook redelivery queued",
        `${status} ${show({ success: body.success, message: body.message })}`,
      );
      report("event-id-format", isEventId(body.event_id), `event_id ${show(body.event_id)}`);
      return;
    default:
      return;
  }
}

function checkStatus(taskId: string, body: Json, report: Report): void {
  const { status, message, video_url, progress } = body;
  report(
    "status-shape",
    ["queued", "processing", "completed", "failed"].includes(status as string) && typeof message === "string",
    show({ status, message }),
  );
  report("task-id-format", isUuidV4(body.task_id), `task_id ${show(body.task_id)}`);
  report(
    "task-id-asked",
    body.task_id === taskId.toLowerCase(),
    `task_id ${show(body.task_id)} answering for ${taskId}`,
  );
  if (status === "failed") report("failure-code", FAILURE_CODES.includes(message as string), show(message));
  const urlFits =
    status === "completed"
      ? typeof video_url === "string"
      : status === "failed"
        ? video_url === null
        : !("video_url" in body);
  report("video-url-by-status", urlFits, `${status} with video_url ${show(video_url)}`);
  if (typeof video_url === "string")
    report("url-format", isHttpUrl(video_url), `video_url ${show(video_url)}`);
  if (progress !== undefined) {
    const fits =
      typeof progress === "number" &&
      (status === "completed"
        ? progress === 100
        : status === "failed"
          ? progress === 0
          : progress >= 0 && progress <= 99);
    report("progress-range", fits, `${status} with progress ${show(progress)}`);
  }
  for (const field of ["created_at", "updated_at"])
    if (body[field] !== undefined)
      report("time-format", isUtcTime(body[field]), `${field} ${show(body[field])}`);
  if (isUtcTime(body.created_at) && isUtcTime(body.updated_at))
    report(
      "created-before-updated",
      Date.parse(body.created_at) <= Date.parse(body.updated_at),
      `created_at ${body.created_at}, updated_at ${body.updated_at}`,
    );
}

function checkWebhookEvents(taskId: string, body: Json, report: Report): void {
  report("task-id-format", isUuidV4(body.task_id), `task_id ${show(body.task_id)}`);
  report(
    "task-id-asked",
    body.task_id === taskId.toLowerCase(),
    `task_id ${show(body.task_id)} answering for ${taskId}`,
  );
  const events = Array.isArray(body.events) ? body.events : [];
  report("event-state", Array.isArray(body.events), "events is not a list");
  for (const event of events) {
    if (!isObject(event)) {
      report("event-state", false, `event ${show(event)}`);
      continue;
    }
    checkEvent(event, report);
  }
}

/** attempt_count's range in each state (docs/api.md#webhook-events). */
const ATTEMPT_COUNTS: Record<string, [number, number]> = {
  pending: [0, 4],
  delivered: [1, 5],
  failed: [5, 5],
};

function checkEvent(event: Json, report: Report): void {
  const { state } = event;
  const counts = ATTEMPT_COUNTS[state as string];
  report("event-state", counts !== undefined, `state ${show(state)}`);
  report("event-id-format", isEventId(event.id), `id ${show(event.id)}`);
  report("url-format", isHttpUrl(event.url), `url ${show(event.url)}`);
  report("time-format", isUtcTime(event.created_at), `created_at ${show(event.created_at)}`);
  if (counts)
    report(
      "attempt-count-range",
      isWholeNumber(event.attempt_count, counts[0], counts[1]),
      `${state} with attempt_count ${show(event.attempt_count)}`,
    );
  const due = event.next_attempt_at;
  report(
    "next-attempt-by-state",
    state === "pending" ? isUtcTime(due) : due === null,
    `${state} with next_attempt_at ${show(due)}`,
  );
  const attempts = Array.isArray(event.attempts) ? event.attempts : [];
  report("attempt-shape", Array.isArray(event.attempts), "attempts is not a list");
  let previous = 0;
  for (const attempt of attempts) {
    if (!isObject(attempt)) {
      report("attempt-shape", false, `attempt ${show(attempt)}`);
      continue;
    }
    checkAttempt(attempt, report);
    const number = attempt.attempt as number;
    report("attempts-in-order", !(number <= previous), `attempt ${number} listed after ${previous}`);
    previous = typeof number === "number" ? number : previous;
  }
  if (state === "delivered")
    report(
      "delivered-has-success",
      attempts.some((attempt) => isObject(attempt) && succeeded(attempt)),
      `no 2xx among ${show(attempts.map((attempt) => (attempt as Json).status_code))}`,
    );
}

const succeeded = (attempt: Json) => isWholeNumber(attempt.status_code, 200, 299) && attempt.error === null;

function checkAttempt(attempt: Json, report: Report): void {
  report(
    "attempt-shape",
    isWholeNumber(attempt.attempt, 1) &&
      isUtcTime(attempt.started_at) &&
      isWholeNumber(attempt.duration_ms, 0),
    show({ attempt: attempt.attempt, started_at: attempt.started_at, duration_ms: attempt.duration_ms }),
  );
  const code = attempt.status_code;
  report("attempt-status-code", code === null || isWholeNumber(code, 100, 599), `status_code ${show(code)}`);
  const twoHundred = isWholeNumber(code, 200, 299);
  const { error } = attempt;
  // A 2xx whose body did not arrive in time is a failed attempt: it keeps its status and says why.
  const fits = error === null ? twoHundred : typeof error === "string" && error.length > 0;
  report("attempt-error", fits, `status_code ${show(code)} with error ${show(error)}`);
}

/** A successful video answer: the headers docs/api.md#video-download promises. */
export function checkVideoAnswer(status: number, headers: Headers, report: Report): void {
  const missing = ["content-type", "accept-ranges", "etag", "last-modified", "cache-control"].filter(
    (name) => !headers.has(name),
  );
  if (status !== 304)
    report(
      "video-headers",
      missing.length === 0 && headers.get("content-type") === "video/mp4",
      `missing ${missing.join(", ")}; Content-Type ${show(headers.get("content-type"))}`,
    );
  if (status === 206) report("video-headers", headers.has("content-range"), "206 without Content-Range");
}
