/** The contract checker flags each kind of broken answer by the rule it breaks, and passes the docs' own examples. */
import { describe, expect, it } from "vitest";
import { checkExchange } from "./check.js";
import { CONTRACT_RULES } from "./rules.js";

const TASK = "3f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b";
const json = { "content-type": "application/json", "x-request-id": "req_1" };
const statusOf = (body: object) =>
  checkExchange(
    { method: "GET", path: `/api/gen/status/${TASK}` },
    { status: 200, headers: json, body: JSON.stringify(body) },
  );
const rulesOf = (violations: { rule: string }[]) => [
  ...new Set(violations.map((violation) => violation.rule)),
];

const failed = { status: "failed", task_id: TASK, message: "TIMEOUT", video_url: null };
const attempt = (status_code: number | null, error: string | null) => ({
  attempt: 1,
  started_at: "2026-11-22T10:00:00.000Z",
  duration_ms: 5,
  status_code,
  error,
});
const event = {
  id: "msg_9c2e4a7b1d3f4e5a8b6c0d2e4f6a8b0c",
  url: "https://example.com/hook",
  state: "delivered",
  attempt_count: 1,
  next_attempt_at: null,
  created_at: "2026-11-22T10:00:00.000Z",
  attempts: [attempt(200, null)],
};
const eventsOf = (events: object[]) =>
  checkExchange(
    { method: "GET", path: `/api/gen/tasks/${TASK}/webhooks` },
    { status: 200, headers: json, body: { task_id: TASK, events } },
  );

describe("the contract checker", () => {
  it("passes the documented examples", () => {
    expect(statusOf(failed)).toEqual([]);
    expect(eventsOf([event])).toEqual([]);
  });

  it.each([
    ["another task", { ...failed, task_id: "0f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b" }, "task-id-asked"],
    [
      "a task id not in lower case",
      { ...failed, task_id: TASK.toUpperCase() },
      "task-id-format,task-id-asked",
    ],
    ["a failed task with progress", { ...failed, progress: 12 }, "progress-range"],
    [
      "a completed task at 50",
      { ...failed, status: "completed", message: "done", video_url: "https://v.test/a.mp4", progress: 50 },
      "progress-range",
    ],
    [
      "a queued task with a URL",
      { ...failed, status: "queued", message: "x", video_url: "https://v.test/a.mp4" },
      "video-url-by-status",
    ],
    ["an unknown failure code", { ...failed, message: "OOPS" }, "failure-code"],
    ["a local time", { ...failed, created_at: "2026-11-22T10:00:00+01:00" }, "time-format"],
    [
      "an update before creation",
      { ...failed, created_at: "2026-11-22T10:00:00.000Z", updated_at: "2026-11-22T09:00:00.000Z" },
      "created-before-updated",
    ],
  ])("flags a status with %s", (_name, body, rules) => {
    expect(rulesOf(statusOf(body))).toEqual(rules.split(","));
  });

  it.each([
    ["an id without msg_", { ...event, id: "9c2e4a7b1d3f4e5a8b6c0d2e4f6a8b0c" }, "event-id-format"],
    ["six attempts in a round", { ...event, attempt_count: 6 }, "attempt-count-range"],
    [
      "a status code of 600",
      { ...event, attempts: [attempt(200, null), { ...attempt(600, "HTTP 600"), attempt: 2 }] },
      "attempt-status-code",
    ],
    [
      "a failed attempt without its error",
      { ...event, attempts: [attempt(200, null), { ...attempt(502, null), attempt: 2 }] },
      "attempt-error",
    ],
    ["no 2xx though delivered", { ...event, attempts: [attempt(502, "HTTP 502")] }, "delivered-has-success"],
    [
      "a pending event without a due time",
      { ...event, state: "pending", attempts: [attempt(502, "HTTP 502")] },
      "next-attempt-by-state",
    ],
  ])("flags a webhook event with %s", (_name, body, rule) => {
    expect(rulesOf(eventsOf([body]))).toEqual([rule]);
  });

  it("flags errors that break the error rules, with a link to the docs", () => {
    const violations = checkExchange(
      { method: "POST", path: "/api/gen/generate" },
      { status: 500, headers: { "content-type": "text/plain" }, body: "Internal Server Error" },
    );
    expect(rulesOf(violations)).toEqual(["request-id-header", "json-body"]);
    expect(violations[1]?.docs).toBe(CONTRACT_RULES["json-body"].docs);
    expect(CONTRACT_RULES["json-body"].docs).toMatch(
      /^https:\/\/github\.com\/genvideo\/genvideo\/blob\/main\/docs\/api\.md#errors$/,
    );
    const wrongPhrase = checkExchange(
      { method: "GET", path: "/api/gen/account" },
      { status: 404, headers: json, body: { error: "Missing", code: "RATE_LIMITED", message: "x" } },
    );
    expect(rulesOf(wrongPhrase)).toEqual(["error-body"]);
  });

  it("flags a video answer without its headers, and a 405 without Allow", () => {
    const video = checkExchange(
      { method: "GET", path: `/videos/${TASK}.mp4?expires=1&signature=x` },
      { status: 200, headers: { "x-request-id": "req_1", "content-type": "video/mp4", etag: '"1"' } },
    );
    expect(video.map((violation) => violation.detail)).toEqual([
      'missing accept-ranges, last-modified, cache-control; Content-Type "video/mp4"',
    ]);
    const notAllowed = checkExchange(
      { method: "DELETE", path: `/videos/${TASK}.mp4` },
      {
        status: 405,
        headers: json,
        body: { error: "Method Not Allowed", code: "METHOD_NOT_ALLOWED", message: "x" },
      },
    );
    expect(rulesOf(notAllowed)).toEqual(["allow-header"]);
  });
});
