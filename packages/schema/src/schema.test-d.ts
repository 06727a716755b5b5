import { describe, expectTypeOf, it } from "vitest";
import {
  type AspectRatio,
  FAILURE_CATALOG,
  type FailureCode,
  type FinishFailureCode,
  type ModelType,
  type TaskStatus,
  type WebhookDeliveryState,
} from "./catalog.js";
import type { ErrorCode } from "./error-codes.js";
import { ERROR_CODES } from "./error-codes.js";
import type { AuthErrorBody, CreateErrorBody, ErrorBody, ValidationErrorBody } from "./errors.js";
import type { OpenApiDocument } from "./openapi.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { GenerationRequest, GenerationRequestForm, GenerationRequestInput } from "./request.js";
import { requestFormOf, validateGenerationRequest } from "./request.js";
import type { AccountResponse, CreateTaskResponse, TaskStatusResponse } from "./responses.js";
import type { ValidationIssue } from "./validation-issue.js";
import type { WebhookPayload } from "./webhook.js";
import type { WebhookAttempt, WebhookEventList } from "./webhook-events.js";

describe("request types", () => {
  it("makes defaults optional on input and present on output", () => {
    expectTypeOf<GenerationRequestInput["model_type"]>().toEqualTypeOf<ModelType | undefined>();
    expectTypeOf<GenerationRequest["model_type"]>().toEqualTypeOf<ModelType>();
    expectTypeOf<GenerationRequest["aspect_ratio"]>().toEqualTypeOf<AspectRatio>();
    expectTypeOf<GenerationRequest["prompt"]>().toEqualTypeOf<string>();
    expectTypeOf<GenerationRequest["reference_images"]>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<GenerationRequest["callback_url"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ModelType>().toEqualTypeOf<"gen-3-fast" | "gen-3">();
    expectTypeOf<AspectRatio>().toEqualTypeOf<"16:9" | "9:16" | "1:1">();
  });

  it("narrows the validation result", () => {
    const result = validateGenerationRequest({});
    if (result.success) expectTypeOf(result.data).toEqualTypeOf<GenerationRequest>();
    else expectTypeOf(result.issues).toEqualTypeOf<ValidationIssue[]>();
    expectTypeOf<ValidationIssue>().toEqualTypeOf<{ path: string; message: string }>();
    expectTypeOf(requestFormOf).returns.toEqualTypeOf<GenerationRequestForm>();
  });
});

describe("response types", () => {
  it("types the create response literally", () => {
    expectTypeOf<CreateTaskResponse>().toEqualTypeOf<{
      success: true;
      message: "Task created";
      task_id: string;
    }>();
  });

  it("narrows the status response by status", () => {
    expectTypeOf<TaskStatusResponse["status"]>().toEqualTypeOf<TaskStatus>();
    const status = {} as TaskStatusResponse;
    if (status.status === "completed") expectTypeOf(status.video_url).toEqualTypeOf<string>();
    if (status.status === "failed") {
      expectTypeOf(status.video_url).toEqualTypeOf<null>();
      expectTypeOf(status.message).toEqualTypeOf<FailureCode>();
    }
    if (status.status === "queued" || status.status === "processing") {
      expectTypeOf(status.video_url).toEqualTypeOf<undefined>();
      expectTypeOf(status.progress).toEqualTypeOf<number | undefined>();
    }
    expectTypeOf(status.video_url).toEqualTypeOf<string | null | undefined>();
    if (status.status === "completed") expectTypeOf(status.progress).toEqualTypeOf<100 | undefined>();
    if (status.status === "failed") expectTypeOf(status.progress).toEqualTypeOf<0 | undefined>();
  });

  it("narrows the webhook payload by success", () => {
    const payload = {} as WebhookPayload;
    if (payload.success) expectTypeOf(payload.video_url).toEqualTypeOf<string>();
    else {
      expectTypeOf(payload.video_url).toEqualTypeOf<null>();
      expectTypeOf(payload.message).toEqualTypeOf<FailureCode>();
    }
  });

  it("types accounts and webhook records", () => {
    expectTypeOf<AccountResponse>().toEqualTypeOf<{ account_id: string; name: string; credits: number }>();
    expectTypeOf<WebhookEventList["events"][number]["state"]>().toEqualTypeOf<WebhookDeliveryState>();
    expectTypeOf<WebhookAttempt["status_code"]>().toEqualTypeOf<number | null>();
  });
});

describe("error types", () => {
  it("keys statuses by code", () => {
    expectTypeOf(ERROR_CODES.RATE_LIMITED).toEqualTypeOf<429>();
    expectTypeOf<ErrorBody["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<CreateErrorBody["success"]>().toEqualTypeOf<false>();
    expectTypeOf<ValidationErrorBody["code"]>().toEqualTypeOf<"INVALID_REQUEST">();
    expectTypeOf<ValidationErrorBody["issues"]>().toEqualTypeOf<ValidationIssue[]>();
    expectTypeOf<AuthErrorBody["error"]>().toEqualTypeOf<"Unauthorized">();
  });

  it("returns an OpenAPI document", () => {
    expectTypeOf(buildOpenApiDocument).returns.toEqualTypeOf<OpenApiDocument>();
  });
});

describe("failure catalog", () => {
  it("gives each code the marker of its kind: [[fail:<its code>]], or [[timeout]] for the deadline's", () => {
    expectTypeOf(FAILURE_CATALOG).toExtend<{
      readonly [Code in FailureCode]: {
        readonly marker: `[[fail:${Code}]]` | "[[timeout]]";
        readonly refunded: boolean;
      };
    }>();
    // Every code but the deadline's is forced by its [[fail:…]] marker.
    expectTypeOf<FinishFailureCode>().toEqualTypeOf<Exclude<FailureCode, "TIMEOUT">>();
  });
});
