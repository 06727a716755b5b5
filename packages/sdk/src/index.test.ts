import { describe, expect, it } from "vitest";
import * as conformance from "./conformance/index.js";
import * as root from "./index.js";
import * as receiverCheck from "./receiver-check/index.js";
import * as deprecatedTesting from "./testing/index.js";

// The entries' run-time exports, pinned: a change here is a change of what customers import.
describe("package entries", () => {
  it("@genvideo/sdk exports the client, its errors and webhook signing and verification", () => {
    expect(Object.keys(root).sort()).toEqual([
      "AuthenticationError",
      "BadRequestError",
      "ConflictError",
      "ConnectionError",
      "GenVideo",
      "GenVideoError",
      "HttpError",
      "InsufficientCreditsError",
      "InvalidArgumentError",
      "NotFoundError",
      "RateLimitError",
      "RequestTimeoutError",
      "ResponseValidationError",
      "ServerError",
      "TaskFailedError",
      "WaitTimeoutError",
      "WebhookVerificationError",
      "signWebhook",
      "verifyWebhook",
    ]);
  });
  it("@genvideo/sdk/receiver-check exports the webhook receiver check", () => {
    expect(Object.keys(receiverCheck).sort()).toEqual([
      "SLOW_ANSWER_MS",
      "UNKNOWN_TASK_ID",
      "WEBHOOK_CHECK_HEADER",
      "checkWebhookReceiver",
      "formatWebhookCheckReport",
    ]);
  });
  it("@genvideo/sdk/conformance exports the deployment check", () => {
    expect(Object.keys(conformance).sort()).toEqual([
      "DeploymentUnreachableError",
      "checkDeployment",
      "formatConformanceReport",
    ]);
  });
  it("@genvideo/sdk/testing, its deprecated first name, exports the same until the next minor", () => {
    expect(deprecatedTesting).toEqual(receiverCheck);
  });
});
