import { describe, expect, it } from "vitest";
import { TASK_STATUSES } from "./catalog.js";
import { AUTH_ERROR_MESSAGES, ERROR_CODES, HTTP_REASON_PHRASES } from "./error-codes.js";
import {
  AuthErrorBodySchema,
  CreateErrorBodySchema,
  ErrorBodySchema,
  ValidationErrorBodySchema,
} from "./errors.js";
import { AccountResponseSchema, CreateTaskResponseSchema, TaskStatusResponseSchema } from "./responses.js";
import { WebhookPayloadSchema } from "./webhook.js";
import { WebhookEventListSchema, WebhookRedeliveryResponseSchema } from "./webhook-events.js";

const TASK_ID = "3f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b";
const VIDEO_URL = `https://api.example.com/videos/${TASK_ID}.mp4?expires=1&signature=ab`;

describe("create response", () => {
  it("is exactly success, the fixed message and the task id", () => {
    const body = { success: true, message: "Task created", task_id: TASK_ID };
    expect(CreateTaskResponseSchema.parse(body)).toEqual(body);
    expect(CreateTaskResponseSchema.safeParse({ ...body, success: false }).success).toBe(false);
  });
});

describe("status response", () => {
  it.each([
    ["queued", { status: "queued", task_id: TASK_ID, message: "Task is queued" }],
    [
      "processing with extensions",
      {
        status: "processing",
        task_id: TASK_ID,
        message: "Rendering",
        progress: 42.5,
        created_at: "2026-11-22T10:00:00.000Z",
        updated_at: "2026-11-22T10:01:00.000Z",
      },
    ],
    [
      "completed",
      {
        status: "completed",
        task_id: TASK_ID,
        message: "Video generated successfully",
        video_url: VIDEO_URL,
      },
    ],
    ["failed", { status: "failed", task_id: TASK_ID, message: "TIMEOUT", video_url: null }],
  ])("accepts %s", (_name, body) => {
    expect(TaskStatusResponseSchema.parse(body)).toEqual(body);
  });

  it.each([
    ["completed without video_url", { status: "completed", task_id: TASK_ID, message: "done" }],
    [
      "completed with a null video_url",
      { status: "completed", task_id: TASK_ID, message: "done", video_url: null },
    ],
    ["failed without video_url", { status: "failed", task_id: TASK_ID, message: "TIMEOUT" }],
    [
      "failed with a message that is not a failure code",
      { status: "failed", task_id: TASK_ID, message: "oops", video_url: null },
    ],
    ["progress above 100", { status: "processing", task_id: TASK_ID, message: "x", progress: 101 }],
    [
      "progress 100 before completion",
      { status: "processing", task_id: TASK_ID, message: "x", progress: 100 },
    ],
    [
      "completed with progress under 100",
      { status: "completed", task_id: TASK_ID, message: "done", video_url: VIDEO_URL, progress: 50 },
    ],
    [
      "failed with progress",
      { status: "failed", task_id: TASK_ID, message: "TIMEOUT", video_url: null, progress: 3 },
    ],
    ["a task id that is not a UUID", { status: "queued", task_id: "task-1", message: "x" }],
    ["a task id in upper case", { status: "queued", task_id: TASK_ID.toUpperCase(), message: "x" }],
    [
      "a video_url that is not an http(s) URL",
      { status: "completed", task_id: TASK_ID, message: "done", video_url: "mailto:a@example.com" },
    ],
    [
      "a time with an offset",
      { status: "queued", task_id: TASK_ID, message: "x", created_at: "2026-11-22T11:00:00+01:00" },
    ],
    ["an unknown status", { status: "paused", task_id: TASK_ID, message: "x" }],
    [
      "a queued task with a video_url",
      { status: "queued", task_id: TASK_ID, message: "x", video_url: VIDEO_URL },
    ],
    [
      "a processing task with a null video_url",
      { status: "processing", task_id: TASK_ID, message: "x", video_url: null },
    ],
  ])("refuses %s", (_name, body) => {
    expect(TaskStatusResponseSchema.safeParse(body).success).toBe(false);
  });

  it("ignores fields it does not know", () => {
    const parsed = TaskStatusResponseSchema.parse({
      status: "queued",
      task_id: TASK_ID,
      message: "x",
      eta: 3,
    });
    expect(parsed).toEqual({ status: "queued", task_id: TASK_ID, message: "x" });
  });

  it("has a shape for every status", () => {
    expect(TASK_STATUSES).toEqual(["queued", "processing", "completed", "failed"]);
  });
});

describe("webhook payload", () => {
  it.each([
    { success: true, message: "Video generated successfully", task_id: TASK_ID, video_url: VIDEO_URL },
    { success: false, message: "UNSAFE_CONTENT", task_id: TASK_ID, video_url: null },
    { success: false, message: "TIMEOUT", task_id: TASK_ID, video_url: null },
  ])("accepts %j", (body) => {
    expect(WebhookPayloadSchema.parse(body)).toEqual(body);
  });

  it("refuses a failure with a video", () => {
    expect(
      WebhookPayloadSchema.safeParse({
        success: false,
        message: "TIMEOUT",
        task_id: TASK_ID,
        video_url: VIDEO_URL,
      }).success,
    ).toBe(false);
  });
});

describe("error codes and bodies", () => {
  // docs/api.md's table pins each code to its status (docs.test.ts); here, that each status has its phrase.
  it("gives every code's status a reason phrase", () => {
    for (const status of Object.values(ERROR_CODES)) expect(HTTP_REASON_PHRASES[status]).toBeTypeOf("string");
  });

  it("keeps the three documented auth messages word for word", () => {
    expect(Object.values(AUTH_ERROR_MESSAGES)).toEqual([
      "Invalid API key",
      "Authorization header required",
      "Invalid authorization format. Use: Bearer <API_KEY>",
    ]);
    for (const message of Object.values(AUTH_ERROR_MESSAGES)) {
      expect(AuthErrorBodySchema.parse({ error: "Unauthorized", message })).toEqual({
        error: "Unauthorized",
        message,
      });
    }
    expect(AuthErrorBodySchema.safeParse({ error: "Unauthorized", message: "Nope" }).success).toBe(false);
  });

  it("gives create errors success: false and validation errors their issues", () => {
    const notFound = { error: "Not Found", code: "NOT_FOUND", message: "Task not found." };
    expect(ErrorBodySchema.parse(notFound)).toEqual(notFound);
    expect(CreateErrorBodySchema.safeParse(notFound).success).toBe(false);
    const invalid = {
      success: false,
      error: "Bad Request",
      code: "INVALID_REQUEST",
      message: "Invalid.",
      issues: [{ path: "prompt", message: "prompt is required." }],
    };
    expect(ValidationErrorBodySchema.parse(invalid)).toEqual(invalid);
    expect(ValidationErrorBodySchema.safeParse({ ...invalid, issues: undefined }).success).toBe(false);
    expect(ErrorBodySchema.safeParse({ ...notFound, code: "TEAPOT" }).success).toBe(false);
  });
});

describe("account and webhook records", () => {
  const ACCOUNT_ID = "5b0e7c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a";

  it("parses an account", () => {
    expect(
      AccountResponseSchema.parse({ account_id: ACCOUNT_ID, name: "default", credits: 1000 }),
    ).toMatchObject({ credits: 1000 });
    for (const account of [
      { account_id: ACCOUNT_ID, name: "default", credits: -1 },
      { account_id: "acct_1", name: "default", credits: 1 },
    ])
      expect(AccountResponseSchema.safeParse(account).success).toBe(false);
  });

  const EVENT_ID = "msg_9c2e4a7b1d3f4e5a8b6c0d2e4f6a8b0c";
  const at = "2026-11-22T10:00:00.000Z";
  const timedOut = { attempt: 1, started_at: at, duration_ms: 30000, status_code: null, error: "timeout" };
  const badGateway = { attempt: 2, started_at: at, duration_ms: 40, status_code: 502, error: "HTTP 502" };
  const ok = { attempt: 3, started_at: at, duration_ms: 35, status_code: 204, error: null };
  const event = { id: EVENT_ID, url: "https://example.com/hook", created_at: at };
  const failed = {
    ...event,
    state: "failed",
    attempt_count: 5,
    next_attempt_at: null,
    attempts: [timedOut, badGateway],
  };
  const delivered = {
    ...event,
    state: "delivered",
    attempt_count: 3,
    next_attempt_at: null,
    attempts: [timedOut, badGateway, ok],
  };
  const pending = { ...event, state: "pending", attempt_count: 1, next_attempt_at: at, attempts: [timedOut] };
  const listOf = (...events: unknown[]) => ({ task_id: TASK_ID, events });

  it("parses a webhook event of each state and a redelivery answer", () => {
    const list = listOf(pending, delivered, failed);
    expect(WebhookEventListSchema.parse(list)).toEqual(list);
    const redelivery = { success: true, message: "Webhook redelivery queued", event_id: EVENT_ID };
    expect(WebhookRedeliveryResponseSchema.parse(redelivery)).toEqual(redelivery);
    expect(WebhookRedeliveryResponseSchema.safeParse({ ...redelivery, event_id: "evt_1" }).success).toBe(
      false,
    );
  });

  it.each([
    ["an unknown state", { ...failed, state: "lost" }],
    ["an id without msg_", { ...failed, id: "9c2e4a7b1d3f4e5a8b6c0d2e4f6a8b0c" }],
    ["a delivered event without a 2xx attempt", { ...delivered, attempts: [timedOut, badGateway] }],
    ["a failed event before its fifth attempt", { ...failed, attempt_count: 4 }],
    ["more than five attempts in a round", { ...delivered, attempt_count: 6 }],
    ["a pending event with five attempts spent", { ...pending, attempt_count: 5 }],
    ["a pending event without its next attempt time", { ...pending, next_attempt_at: null }],
    ["a finished event with a next attempt time", { ...delivered, next_attempt_at: at }],
    ["a status code over 599", { ...failed, attempts: [{ ...badGateway, status_code: 600 }] }],
    ["a 2xx attempt with an error", { ...delivered, attempts: [{ ...ok, error: "HTTP 204" }] }],
    ["a failed attempt without its error", { ...failed, attempts: [{ ...badGateway, error: null }] }],
    ["attempt number 0", { ...failed, attempts: [{ ...timedOut, attempt: 0 }] }],
  ])("refuses %s", (_name, refused) => {
    expect(WebhookEventListSchema.safeParse(listOf(refused)).success).toBe(false);
  });
});
