// Signing is the service's own rule, so it lives in the schema; customers sign test webhooks with it.
export {
  type SignedWebhookHeaders,
  type SignWebhookOptions,
  signWebhook,
  type WebhookSecret,
} from "@genvideo/schema";
export {
  type CreateTaskOptions,
  type GenerateOptions,
  GenVideo,
  type GenVideoOptions,
  type RequestOptions,
} from "./client.js";
export { GenVideoError, type GenVideoErrorOptions } from "./errors.js";
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  HttpError,
  type HttpErrorDetails,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitError,
  ServerError,
} from "./http-errors.js";
export { InvalidArgumentError } from "./invalid-argument-error.js";
export { ConnectionError, RequestTimeoutError, ResponseValidationError } from "./request-errors.js";
export type {
  CompletedTaskStatus,
  CreateTaskResponse,
  FailedTaskStatus,
  FailureCode,
  GenerationRequestInput,
  HttpErrorBody,
  ProcessingTaskStatus,
  QueuedTaskStatus,
  TaskStatusResponse,
  WebhookPayload,
} from "./responses.js";
export { TaskFailedError, WaitTimeoutError } from "./task-errors.js";
export type { WaitOptions } from "./wait-for-task.js";
export {
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./webhook-verification-error.js";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookBody,
  type WebhookHeaders,
} from "./webhooks.js";
