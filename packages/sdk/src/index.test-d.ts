import { describe, expectTypeOf, it } from "vitest";
import {
  type CompletedTaskStatus,
  type CreateTaskResponse,
  type FailureCode,
  type GenerationRequestInput,
  GenVideo,
  GenVideoError,
  HttpError,
  NotFoundError,
  RateLimitError,
  type SignedWebhookHeaders,
  signWebhook,
  TaskFailedError,
  type TaskStatusResponse,
  verifyWebhook,
  WaitTimeoutError,
  type WebhookPayload,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./index.js";

declare const client: GenVideo;
declare const error: unknown;

describe("client types", () => {
  it("takes every option as optional", () => {
    expectTypeOf(GenVideo).constructorParameters.toEqualTypeOf<
      [options?: import("./client.js").GenVideoOptions]
    >();
    // @ts-expect-error timeouts are numbers of milliseconds
    new GenVideo({ timeout: "60s" });
  });

  it("takes the request in its wire shape and returns the wire response", () => {
    expectTypeOf(client.createTask).parameter(0).toEqualTypeOf<GenerationRequestInput>();
    expectTypeOf(client.createTask({ prompt: "x" })).resolves.toEqualTypeOf<CreateTaskResponse>();
    expectTypeOf<CreateTaskResponse["task_id"]>().toBeString();
    // @ts-expect-error model_type is one of the known models
    client.createTask({ prompt: "x", model_type: "gen-9" });
    // @ts-expect-error wire names stay snake_case
    client.createTask({ prompt: "x", aspectRatio: "16:9" });
  });

  it("lets the idempotency key be a string or false, never true", () => {
    client.createTask({ prompt: "x" }, { idempotencyKey: "order-1" });
    client.createTask({ prompt: "x" }, { idempotencyKey: false });
    // @ts-expect-error true is not a key
    client.createTask({ prompt: "x" }, { idempotencyKey: true });
  });

  it("narrows a status by its status field", () => {
    expectTypeOf(client.getStatus("id")).resolves.toEqualTypeOf<TaskStatusResponse>();
    const status = {} as TaskStatusResponse;
    if (status.status === "completed") expectTypeOf(status.video_url).toBeString();
    if (status.status === "failed") expectTypeOf(status.video_url).toBeNull();
    // Absent while queued or processing, yet readable on any status.
    expectTypeOf(status.video_url).toEqualTypeOf<string | null | undefined>();
    if (status.status === "processing") expectTypeOf(status.progress).toEqualTypeOf<number | undefined>();
  });

  it("resolves a wait with a completed status only", () => {
    expectTypeOf(client.pollUntilDone("id")).resolves.toEqualTypeOf<CompletedTaskStatus>();
    expectTypeOf(client.generate({ prompt: "x" })).resolves.toEqualTypeOf<CompletedTaskStatus>();
    expectTypeOf<CompletedTaskStatus["video_url"]>().toBeString();
    client.pollUntilDone(
      { task_id: "id" },
      { timeout: 1, interval: 1, maxInterval: 2, signal: AbortSignal.timeout(1) },
    );
    client.pollUntilDone("id", {
      onProgress: (status) => expectTypeOf(status).toEqualTypeOf<TaskStatusResponse>(),
    });
  });
});

describe("error types", () => {
  it("narrows with isInstance", () => {
    if (GenVideoError.isInstance(error)) expectTypeOf(error.requestId).toEqualTypeOf<string | undefined>();
    if (HttpError.isInstance(error)) expectTypeOf(error.status).toBeNumber();
    if (NotFoundError.isInstance(error)) expectTypeOf(error).toEqualTypeOf<NotFoundError>();
    if (RateLimitError.isInstance(error)) expectTypeOf(error.retryAfter).toEqualTypeOf<number | undefined>();
    if (TaskFailedError.isInstance(error)) {
      expectTypeOf(error.taskId).toBeString();
      expectTypeOf<FailureCode>().toExtend<typeof error.code>();
    }
    if (WaitTimeoutError.isInstance(error)) {
      expectTypeOf(error.lastStatus).toEqualTypeOf<TaskStatusResponse | undefined>();
    }
    if (WebhookVerificationError.isInstance(error)) {
      expectTypeOf(error.reason).toEqualTypeOf<WebhookVerificationReason>();
    }
  });

  it("places every class under GenVideoError", () => {
    expectTypeOf<NotFoundError>().toExtend<HttpError>();
    expectTypeOf<HttpError>().toExtend<GenVideoError>();
    expectTypeOf<TaskFailedError>().toExtend<GenVideoError>();
    expectTypeOf<WebhookVerificationError>().toExtend<GenVideoError>();
  });
});

describe("webhook types", () => {
  it("verifies from a Request or from a body and headers", () => {
    expectTypeOf(
      verifyWebhook(new Request("https://x.test"), "whsec_x"),
    ).resolves.toEqualTypeOf<WebhookPayload>();
    verifyWebhook("{}", { "webhook-id": "x", "webhook-signature": ["a", "b"] }, ["whsec_a", "whsec_b"], {
      tolerance: 60_000,
      now: new Date(),
      expectedTaskId: "id",
    });
    verifyWebhook(new Uint8Array(), new Headers(), "whsec_x");
    // @ts-expect-error a parsed body cannot be verified
    verifyWebhook({ success: true }, new Headers(), "whsec_x");
    // @ts-expect-error a body without headers
    verifyWebhook("{}", "whsec_x");
  });

  it("narrows a payload by success", () => {
    const payload = {} as WebhookPayload;
    if (payload.success) expectTypeOf(payload.video_url).toBeString();
    else expectTypeOf(payload.video_url).toBeNull();
  });

  it("signs into headers that fetch accepts", () => {
    expectTypeOf(
      signWebhook({ payload: "{}", secret: "whsec_x" }),
    ).resolves.toEqualTypeOf<SignedWebhookHeaders>();
    expectTypeOf<SignedWebhookHeaders>().toExtend<HeadersInit>();
  });
});
