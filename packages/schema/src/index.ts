/**
 * `@genvideo/schema`: every wire object's zod/mini schema and type, the error codes, the limits and
 * the OpenAPI document. Exported by name, so that a new export is a decision; `index.test.ts` pins
 * the run-time ones.
 */

export { decodeBase64, decodePaddedBase64, encodeBase64, isBase64 } from "./base64.js";
export {
  ASPECT_RATIOS,
  type AspectRatio,
  DEFAULT_ASPECT_RATIO,
  DEFAULT_MODEL_TYPE,
  FAILURE_CATALOG,
  FAILURE_CODES,
  type FailureCode,
  type FailureCodeEntry,
  type FinishFailureCode,
  MODEL_TYPES,
  MODELS,
  type ModelType,
  TASK_CREATED_MESSAGE,
  TASK_STATUS_MESSAGES,
  TASK_STATUSES,
  type TaskStatus,
  WEBHOOK_DELIVERY_STATES,
  WEBHOOK_REDELIVERY_MESSAGE,
  type WebhookDeliveryState,
} from "./catalog.js";
export {
  AUTH_ERROR_MESSAGES,
  type AuthErrorMessage,
  ERROR_CODES,
  type ErrorCode,
  type ErrorStatus,
  HTTP_REASON_PHRASES,
  VIDEO_ERROR_CODES,
  VIDEO_REASON_PHRASES,
  type VideoErrorCode,
} from "./error-codes.js";
export {
  type AuthErrorBody,
  AuthErrorBodySchema,
  type CreateErrorBody,
  CreateErrorBodySchema,
  type ErrorBody,
  ErrorBodySchema,
  type ValidationErrorBody,
  ValidationErrorBodySchema,
  type VideoErrorBody,
  VideoErrorBodySchema,
} from "./errors.js";
export {
  API_KEY_PREFIX,
  API_PATHS,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADER,
  VIDEO_PATH,
  WEBHOOK_HEADERS,
  WEBHOOK_SECRET_PREFIX,
} from "./http.js";
export {
  decodeImageDataUri,
  type InspectedImage,
  inspectImageDataUri,
  type RejectedImage,
} from "./image-data-uri.js";
export {
  CALLBACK_URL_MAX_LENGTH,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_TTL_MS,
  IMAGE_MAX_BYTES,
  IMAGE_MAX_SIDE_PX,
  IMAGE_MEDIA_TYPES,
  type ImageMediaType,
  PROMPT_MAX_LENGTH,
  PROMPT_MIN_LENGTH,
  RATE_LIMIT_CREATES_PER_MINUTE,
  RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE,
  RATE_LIMIT_STATUS_READS_PER_MINUTE,
  REFERENCE_IMAGES_MAX_COUNT,
  REFERENCE_IMAGES_MIN_COUNT,
  REQUEST_BODY_MAX_BYTES,
  REQUEST_BODY_MAX_VALUES,
  TASK_DEADLINE_MS,
  VALIDATION_ISSUES_MAX_COUNT,
  VIDEO_URL_TTL_MS,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  WEBHOOK_CONNECT_TIMEOUT_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_MAX_BYTES,
  WEBHOOK_RETRY_SPACING_MS,
} from "./limits.js";
export {
  buildOpenApiDocument,
  DEFAULT_SERVER_URL,
  type OpenApiDocument,
  type OpenApiDocumentOptions,
} from "./openapi.js";
export {
  GENERATION_REQUEST_FIELDS,
  type GenerationRequest,
  type GenerationRequestForm,
  type GenerationRequestInput,
  GenerationRequestSchema,
  type GenerationRequestValidation,
  referenceImagesCountProblem,
  requestFormOf,
  validateGenerationRequest,
} from "./request.js";
export {
  type AccountResponse,
  AccountResponseSchema,
  CompletedStatusResponseSchema,
  type CreateTaskResponse,
  CreateTaskResponseSchema,
  FailedStatusResponseSchema,
  ProcessingStatusResponseSchema,
  QueuedStatusResponseSchema,
  type TaskStatusResponse,
  TaskStatusResponseSchema,
} from "./responses.js";
export {
  type ValidationIssue,
  ValidationIssueSchema,
  validationMessage,
} from "./validation-issue.js";
export {
  CompletedWebhookPayloadSchema,
  FailedWebhookPayloadSchema,
  type WebhookPayload,
  WebhookPayloadSchema,
  webhookBody,
} from "./webhook.js";
export {
  DeliveredWebhookEventSchema,
  FailedWebhookAttemptSchema,
  FailedWebhookEventSchema,
  PendingWebhookEventSchema,
  SucceededWebhookAttemptSchema,
  type WebhookAttempt,
  WebhookAttemptSchema,
  type WebhookEvent,
  type WebhookEventList,
  WebhookEventListSchema,
  WebhookEventSchema,
  type WebhookRedeliveryResponse,
  WebhookRedeliveryResponseSchema,
} from "./webhook-events.js";
export {
  type SignedWebhookHeaders,
  type SignWebhookOptions,
  signedWebhookContent,
  signWebhook,
  type WebhookSecret,
  webhookSecretBytes,
} from "./webhook-signature.js";
