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
    ["an unknown status", { status: "paused", task_id: TASK_ID, message: "x" }],
  ])("refuses %s", (_name, body) => {
    expect(TaskStatusResponseSchema.safeParse(body).success).toBe(false);
  });

  it("drops video_url while a task is unfinished and ignores fields it does not know", () => {
    const parsed = TaskStatusResponseSchema.parse({
      status: "queued",
      task_id: TASK_ID,
      message: "x",
      video_url: "y",
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
  it("parses an account", () => {
    expect(
      AccountResponseSchema.parse({ account_id: "acct_1", name: "default", credits: 1000 }),
    ).toMatchObject({ credits: 1000 });
    expect(
      AccountResponseSchema.safeParse({ account_id: "acct_1", name: "default", credits: -1 }).success,
    ).toBe(false);
  });

  it("parses a webhook event list and a redelivery answer", () => {
    const list = {
      task_id: TASK_ID,
      events: [
        {
          id: "msg_1",
          url: "https://example.com/hook",
          state: "failed",
          attempt_count: 1,
          next_attempt_at: null,
          created_at: "2026-11-22T10:00:00.000Z",
          attempts: [
            {
              attempt: 1,
              started_at: "2026-11-22T10:00:00.000Z",
              duration_ms: 30000,
              status_code: null,
              error: "timeout",
            },
          ],
        },
      ],
    };
    expect(WebhookEventListSchema.parse(list)).toEqual(list);
    expect(
      WebhookEventListSchema.safeParse({ ...list, events: [{ ...list.events[0], state: "lost" }] }).success,
    ).toBe(false);
    const redelivery = { success: true, message: "Webhook redelivery queued", event_id: "msg_1" };
    expect(WebhookRedeliveryResponseSchema.parse(redelivery)).toEqual(redelivery);
  });
});
