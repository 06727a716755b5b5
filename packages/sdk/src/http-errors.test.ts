import { describe, expect, it } from "vitest";
import { errorBody, json, networkFailure, type Reply, scriptedFetch, taskId } from "../test/support/fetch.js";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  GenVideo,
  GenVideoError,
  HttpError,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitError,
  RequestTimeoutError,
  ResponseValidationError,
  ServerError,
  TaskFailedError,
  WaitTimeoutError,
  WebhookVerificationError,
} from "./index.js";

function failureOf(reply: Reply, call: "create" | "status" = "status"): Promise<unknown> {
  const { fetch } = scriptedFetch(reply);
  const client = new GenVideo({ apiKey: "gen_sk_test", baseUrl: "http://api.test", fetch, maxRetries: 0 });
  const pending = call === "create" ? client.createTask({ prompt: "a fox" }) : client.getStatus(taskId);
  return pending.then(
    () => expect.unreachable("the call should fail"),
    (error: unknown) => error,
  );
}

const classes = {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitError,
  ServerError,
};

describe("mapping of HTTP errors", () => {
  it.each([
    [401, undefined, "AuthenticationError"],
    [400, "INVALID_REQUEST", "BadRequestError"],
    [400, "INVALID_CALLBACK_URL", "BadRequestError"],
    [413, "PAYLOAD_TOO_LARGE", "BadRequestError"],
    [415, "UNSUPPORTED_MEDIA_TYPE", "BadRequestError"],
    [402, "INSUFFICIENT_CREDITS", "InsufficientCreditsError"],
    [404, "NOT_FOUND", "NotFoundError"],
    [409, "IDEMPOTENCY_IN_PROGRESS", "ConflictError"],
    [422, "IDEMPOTENCY_KEY_REUSED", "ConflictError"],
    [422, "SOMETHING_ELSE", "BadRequestError"],
    [429, "RATE_LIMITED", "RateLimitError"],
    [500, "INTERNAL_ERROR", "ServerError"],
    [503, undefined, "ServerError"],
  ] as const)("maps %i %s to %s", async (status, code, name) => {
    const body = code
      ? { error: "Error", code, message: "details" }
      : { error: "Unauthorized", message: "Invalid API key" };
    const error = await failureOf(json(body, status, { "x-request-id": "req_1" }), "create");
    expect(classes[name].isInstance(error)).toBe(true);
    for (const [other, otherClass] of Object.entries(classes)) {
      if (other !== name) expect(otherClass.isInstance(error)).toBe(false);
    }
    expect(HttpError.isInstance(error) && GenVideoError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(classes[name]);
    expect(error).toMatchObject({ name, status, code, requestId: "req_1", body: { message: body.message } });
  });

  it("maps a status without a class of its own to HttpError", async () => {
    const error = await failureOf(errorBody(403, "FORBIDDEN"));
    expect(HttpError.isInstance(error) && error.status).toBe(403);
    expect(Object.values(classes).some((errorClass) => errorClass.isInstance(error))).toBe(false);
  });

  it("keeps validation issues and reads the request id from a 5xx body", async () => {
    const issues = [{ path: "start_frame", message: "must be a data URI" }];
    const invalid = await failureOf(
      json({ error: "Bad Request", code: "INVALID_REQUEST", message: "bad", issues }, 400),
    );
    expect(BadRequestError.isInstance(invalid) && invalid.body.issues).toEqual(issues);
    const fault = await failureOf(
      json({ error: "x", code: "INTERNAL_ERROR", message: "x", request_id: "req_9" }, 500),
    );
    expect(fault).toMatchObject({ requestId: "req_9", message: "500 INTERNAL_ERROR: x" });
  });

  it("tolerates an error body that is not JSON", async () => {
    const error = await failureOf(new Response("<html>bad gateway</html>", { status: 502 }));
    expect(ServerError.isInstance(error) && error.status).toBe(502);
    expect(error).toMatchObject({ code: undefined, message: "502: request failed" });
  });

  it("gives the retry-after of a 429 in milliseconds", async () => {
    const error = await failureOf(errorBody(429, "RATE_LIMITED", "slow", { "retry-after": "7" }));
    expect(RateLimitError.isInstance(error) && error.retryAfter).toBe(7000);
  });
});

describe("mapping of other failures", () => {
  it("wraps a network failure in ConnectionError, keeping the cause", async () => {
    const error = await failureOf(networkFailure("ECONNREFUSED"));
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      message: "Could not reach http://api.test: fetch failed",
      requestId: undefined,
    });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("rejects a 2xx body that is not JSON, with the request id", async () => {
    const reply = new Response("not json", { headers: { "x-request-id": "req_2" } });
    const error = await failureOf(reply);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ issue: "the body is not JSON", requestId: "req_2" });
  });

  it.each([
    ["a missing task_id", { status: "processing", message: "x" }, "task_id: expected string, got undefined"],
    ["a completed task without URL", { status: "completed", task_id: taskId, message: "x" }, "video_url"],
    [
      "a failed task with a URL",
      { status: "failed", task_id: taskId, message: "TIMEOUT", video_url: "u" },
      "video_url",
    ],
    [
      "a progress that is text",
      { status: "queued", task_id: taskId, message: "x", progress: "5" },
      "progress",
    ],
    ["an array", [], "expected an object"],
    [
      "the answer about another task",
      { status: "queued", task_id: "0f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b", message: "x" },
      "task_id: not the task asked for",
    ],
    [
      "an update before its creation",
      {
        status: "queued",
        task_id: taskId,
        message: "x",
        created_at: "2026-11-22T10:00:00.000Z",
        updated_at: "2026-11-22T09:59:59.999Z",
      },
      "updated_at: before created_at",
    ],
  ])("rejects a status with %s", async (_, body, issue) => {
    const error = await failureOf(json(body, 200, { "x-request-id": "req_3" }));
    expect(ResponseValidationError.isInstance(error) && error.issue).toContain(issue);
    expect(error).toMatchObject({ body, requestId: "req_3" });
  });

  it("rejects a create response that is not a success", async () => {
    const error = await failureOf(json({ success: false, message: "x", task_id: taskId }), "create");
    expect(ResponseValidationError.isInstance(error)).toBe(true);
  });
});

describe("isInstance", () => {
  it("recognises each class by its mark only, as a copy from another realm would carry it", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("genvideo.error.TaskFailedError")]: true });
    expect(TaskFailedError.isInstance(foreign)).toBe(true);
    expect(WaitTimeoutError.isInstance(foreign)).toBe(false);
    expect(RequestTimeoutError.isInstance(new RequestTimeoutError(5))).toBe(true);
    expect(WebhookVerificationError.isInstance(new RequestTimeoutError(5))).toBe(false);
    expect(GenVideoError.isInstance(new WebhookVerificationError("too_old", "x"))).toBe(true);
    expect(HttpError.isInstance(new ConnectionError("x"))).toBe(false);
  });
});
