import {
  CreateTaskResponseSchema,
  ErrorBodySchema,
  TaskStatusResponseSchema,
  WebhookPayloadSchema,
} from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { parseCreateTaskResponse, parseTaskStatus, parseWebhookPayload, readErrorBody } from "./responses.js";

// The SDK checks responses with small validators instead of the schema package's zod schemas
// (see responses.ts). These cases hold the two to the same verdicts, except where the SDK is
// deliberately more tolerant, so a change to the contract in @genvideo/schema fails here.

const id = "4f1c2a9e-3b7d-4c8e-9a6f-1d2e3f4a5b6c";
const base = { task_id: id, message: "Rendering" };

const statuses: [string, unknown, "both" | "neither" | "sdk only"][] = [
  ["queued", { ...base, status: "queued" }, "both"],
  [
    "processing with extensions",
    { ...base, status: "processing", progress: 50, created_at: "2026-01-01T00:00:00Z" },
    "both",
  ],
  ["completed", { ...base, status: "completed", video_url: "https://x.test/v.mp4" }, "both"],
  ["failed", { ...base, status: "failed", message: "TIMEOUT", video_url: null }, "both"],
  ["an extra field", { ...base, status: "queued", position: 3 }, "both"],
  ["completed without URL", { ...base, status: "completed" }, "neither"],
  ["completed with null URL", { ...base, status: "completed", video_url: null }, "neither"],
  ["failed without null URL", { ...base, status: "failed", message: "TIMEOUT" }, "neither"],
  ["no task_id", { status: "queued", message: "x" }, "neither"],
  ["a numeric message", { ...base, status: "queued", message: 5 }, "neither"],
  ["a text progress", { ...base, status: "queued", progress: "5" }, "neither"],
  ["null", null, "neither"],
  // Tolerated on purpose: DESIGN.md asks clients to treat an unknown status as not finished,
  // and a failure code added later must still reach the caller as a TaskFailedError.
  ["an unknown status", { ...base, status: "warming_up" }, "sdk only"],
  [
    "an unknown failure code",
    { ...base, status: "failed", message: "QUOTA_EXCEEDED", video_url: null },
    "sdk only",
  ],
];

const creates: [string, unknown, "both" | "neither" | "sdk only"][] = [
  ["a created task", { success: true, message: "Task created", task_id: id }, "both"],
  ["success false", { success: false, message: "Task created", task_id: id }, "neither"],
  ["no task_id", { success: true, message: "Task created" }, "neither"],
  ["another message text", { success: true, message: "Queued", task_id: id }, "sdk only"],
];

const webhooks: [string, unknown, "both" | "neither" | "sdk only"][] = [
  [
    "a completion",
    { success: true, message: "Video ready", task_id: id, video_url: "https://x.test/v.mp4" },
    "both",
  ],
  ["a failure", { success: false, message: "UNSAFE_CONTENT", task_id: id, video_url: null }, "both"],
  ["a completion without URL", { success: true, message: "ok", task_id: id, video_url: null }, "neither"],
  ["a failure with a URL", { success: false, message: "TIMEOUT", task_id: id, video_url: "u" }, "neither"],
  ["a text success", { success: "true", message: "ok", task_id: id, video_url: "u" }, "neither"],
  [
    "an unknown failure code",
    { success: false, message: "QUOTA_EXCEEDED", task_id: id, video_url: null },
    "sdk only",
  ],
];

function verdict(
  schemaAccepts: boolean,
  sdkAccepts: boolean,
): "both" | "neither" | "sdk only" | "schema only" {
  if (schemaAccepts) return sdkAccepts ? "both" : "schema only";
  return sdkAccepts ? "sdk only" : "neither";
}

describe("the SDK's validators agree with @genvideo/schema", () => {
  it.each(statuses)("status: %s", (_, body, expected) => {
    const sdk = parseTaskStatus(body).issue === undefined;
    expect(verdict(TaskStatusResponseSchema.safeParse(body).success, sdk)).toBe(expected);
  });

  it.each(creates)("create response: %s", (_, body, expected) => {
    const sdk = parseCreateTaskResponse(body).issue === undefined;
    expect(verdict(CreateTaskResponseSchema.safeParse(body).success, sdk)).toBe(expected);
  });

  it.each(webhooks)("webhook payload: %s", (_, body, expected) => {
    const sdk = parseWebhookPayload(body).issue === undefined;
    expect(verdict(WebhookPayloadSchema.safeParse(body).success, sdk)).toBe(expected);
  });

  it("reads every field of an error body the schema describes", () => {
    const body = {
      error: "Bad Request",
      code: "INVALID_REQUEST",
      message: "prompt is required",
      issues: [{ path: "prompt", message: "required" }],
      request_id: "req_1",
    };
    expect(ErrorBodySchema.safeParse(body).success).toBe(true);
    expect(readErrorBody(body)).toEqual(body);
    expect(readErrorBody({ error: 5, message: "x" })).toEqual({ message: "x" });
    expect(readErrorBody("oops")).toEqual({});
  });
});
