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

const statuses: [string, unknown, "both" | "neither" | "sdk only" | "schema only"][] = [
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
  // Tolerated on purpose: docs/api.md#task-status asks clients to treat an unknown status as not finished,
  // and a failure code added later must still reach the caller as a TaskFailedError.
  ["an unknown status", { ...base, status: "warming_up" }, "sdk only"],
  [
    "an unknown failure code",
    { ...base, status: "failed", message: "QUOTA_EXCEEDED", video_url: null },
    "sdk only",
  ],
  // The SDK reads no video_url while a task is unfinished, so it lets a stray one pass.
  ["queued with a video_url", { ...base, status: "queued", video_url: "https://x.test/v.mp4" }, "sdk only"],
  // The two rules no schema can state, which only the SDK checks.
  [
    "about another task",
    { ...base, task_id: "0f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b", status: "queued" },
    "schema only",
  ],
  [
    "updated before created",
    {
      ...base,
      status: "queued",
      created_at: "2026-01-01T00:00:01Z",
      updated_at: "2026-01-01T00:00:00Z",
    },
    "schema only",
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
    const sdk = parseTaskStatus(body, id).issue === undefined;
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

describe("the status check", () => {
  // Every field the check reads, with values of every kind it tells apart (absent, undefined,
  // null, each type, the statuses with a rule of their own), in every combination.
  const absent = Symbol("absent");
  const values: Record<string, unknown[]> = {
    status: [absent, "queued", "processing", "completed", "failed", "later", "", 0, null, undefined],
    task_id: [absent, id, "", 1, null, undefined],
    message: [absent, "Rendering", "", 0, null, undefined, false],
    progress: [absent, undefined, 0, 42, Number.NaN, "5", null],
    created_at: [absent, undefined, "2026-01-01T00:00:00Z", 1, null],
    updated_at: [absent, undefined, "2026-01-01T00:00:00Z", {}, null],
    video_url: [absent, undefined, "https://x.test/v.mp4", "", null, 0, []],
  };
  function* bodies(fields: string[], body: Record<string, unknown> = {}): Generator<Record<string, unknown>> {
    const [field, ...rest] = fields;
    if (field === undefined) {
      yield body;
      return;
    }
    for (const value of values[field]!) {
      const next = { ...body };
      if (value !== absent) next[field] = value;
      yield* bodies(rest, next);
    }
  }
  /** docs/api.md#task-status, as the SDK reads it: the types of the fields, by status. */
  function documented(body: Record<string, unknown>): boolean {
    const { status, task_id, message, progress, created_at, updated_at, video_url } = body;
    const optional = (value: unknown, type: string) => value === undefined || typeof value === type;
    return (
      typeof status === "string" &&
      typeof task_id === "string" &&
      typeof message === "string" &&
      optional(progress, "number") &&
      optional(created_at, "string") &&
      optional(updated_at, "string") &&
      (status === "completed" ? typeof video_url === "string" : status !== "failed" || video_url === null)
    );
  }

  it("accepts exactly the bodies whose fields have their documented types", () => {
    let accepted = 0;
    let total = 0;
    const disagreements: Record<string, unknown>[] = [];
    for (const body of bodies(Object.keys(values))) {
      total += 1;
      const parsed = parseTaskStatus(body, typeof body.task_id === "string" ? body.task_id : id);
      if ((parsed.issue === undefined) !== documented(body)) disagreements.push(body);
      if (parsed.issue === undefined) {
        accepted += 1;
        expect(parsed.value).toBe(body);
      }
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    // Both verdicts are well represented, so the agreement above is not vacuous.
    expect(total).toBe(10 * 6 * 7 * 7 * 5 * 5 * 7);
    expect(accepted).toBeGreaterThan(100);
    expect(total - accepted).toBeGreaterThan(100_000);
  });

  it.each([
    ["null", null, "expected an object"],
    ["undefined", undefined, "expected an object"],
    ["a string", "queued", "expected an object"],
    ["an array", [{ status: "queued", task_id: id, message: "x" }], "expected an object"],
    [
      "an array with the fields",
      Object.assign([], { status: "queued", task_id: id, message: "x" }),
      "expected an object",
    ],
    ["a numeric status", { status: 1, task_id: id, message: "x" }, "status: expected string, got number"],
    [
      "a text progress",
      { status: "queued", task_id: id, message: "x", progress: "5" },
      "progress: expected number or undefined, got string",
    ],
    [
      "a completion without URL",
      { status: "completed", task_id: id, message: "x", video_url: null },
      "video_url: expected string, got null",
    ],
    [
      "another task",
      { status: "queued", task_id: id.replace("4", "5"), message: "x" },
      "task_id: not the task asked for",
    ],
  ])("names the first issue of %s", (_, body, issue) => {
    expect(parseTaskStatus(body, id)).toEqual({ issue });
  });

  it("takes the id asked for in any case, as the service lowercases it", () => {
    const body = { status: "queued", task_id: id, message: "x" };
    expect(parseTaskStatus(body, id.toUpperCase())).toEqual({ value: body });
  });
});
