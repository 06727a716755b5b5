/**
 * Example values of the OpenAPI document, in the server's own words: the messages are the texts
 * the reference server sends (a suite in tests/openapi compares them with real answers), the ids
 * have the real shapes, and the request examples make a video when sent as they are (their images
 * are real, small pictures: openapi-example-images.ts).
 */

import { TASK_CREATED_MESSAGE, TASK_STATUS_MESSAGES, WEBHOOK_REDELIVERY_MESSAGE } from "./catalog.js";
import { AUTH_ERROR_MESSAGES, type ErrorCode } from "./error-codes.js";
import { REQUEST_BODY_MAX_BYTES } from "./limits.js";
import {
  EXAMPLE_END_FRAME as END_FRAME,
  EXAMPLE_REFERENCE_IMAGE as REFERENCE_IMAGE,
  EXAMPLE_START_FRAME as START_FRAME,
} from "./openapi-example-images.js";
import { type GenerationRequestInput, validateGenerationRequest } from "./request.js";
import type { TaskStatusResponse } from "./responses.js";
import { type ValidationIssue, validationMessage } from "./validation-issue.js";
import type { WebhookPayload } from "./webhook.js";
import type { WebhookEventList } from "./webhook-events.js";

export const EXAMPLE_TASK_ID = "3f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b";
export const EXAMPLE_REQUEST_ID = "req_0b6f3e2a-5c1d-4f8e-9a7b-2c4d6e8f0a1b";
const EXAMPLE_EVENT_ID = "msg_9c2e4a7b1d3f4e5a8b6c0d2e4f6a8b0c";
const VIDEO_URL = `https://api.example.com/videos/${EXAMPLE_TASK_ID}.mp4?expires=1798761600&signature=2b7e1516a3c0`;
const CREATED_AT = "2026-11-22T10:00:00.000Z";

type Examples<T> = Record<string, { summary: string; value: T }>;

export const REQUEST_EXAMPLES: Examples<GenerationRequestInput> = {
  text: { summary: "Text to video", value: { prompt: "A red fox running through fresh snow at dawn" } },
  frameToFrame: {
    summary: "Frame to frame",
    value: {
      prompt: "The city skyline turns from day to night",
      model_type: "gen-3-fast",
      start_frame: START_FRAME,
      end_frame: END_FRAME,
      aspect_ratio: "16:9",
    },
  },
  referenceImages: {
    summary: "Reference images, with a webhook",
    value: {
      prompt: "A ceramic teapot spinning on a turntable",
      model_type: "gen-3",
      reference_images: [REFERENCE_IMAGE],
      aspect_ratio: "1:1",
      callback_url: "https://example.com/webhooks/genvideo",
    },
  },
};

export const CREATE_RESPONSE_EXAMPLE = {
  success: true,
  message: TASK_CREATED_MESSAGE,
  task_id: EXAMPLE_TASK_ID,
};

const timestamps = { created_at: CREATED_AT, updated_at: "2026-11-22T10:02:30.000Z" };
export const STATUS_EXAMPLES: Examples<TaskStatusResponse> = {
  queued: {
    summary: "Queued",
    value: {
      status: "queued",
      task_id: EXAMPLE_TASK_ID,
      message: TASK_STATUS_MESSAGES.queued,
      progress: 0,
      ...timestamps,
    },
  },
  processing: {
    summary: "Processing",
    value: {
      status: "processing",
      task_id: EXAMPLE_TASK_ID,
      message: TASK_STATUS_MESSAGES.processing,
      progress: 42,
      ...timestamps,
    },
  },
  completed: {
    summary: "Completed",
    value: {
      status: "completed",
      task_id: EXAMPLE_TASK_ID,
      message: TASK_STATUS_MESSAGES.completed,
      video_url: VIDEO_URL,
      progress: 100,
      ...timestamps,
    },
  },
  failed: {
    summary: "Timed out",
    value: { status: "failed", task_id: EXAMPLE_TASK_ID, message: "TIMEOUT", video_url: null, ...timestamps },
  },
};

export const WEBHOOK_EXAMPLES: Examples<WebhookPayload> = {
  completed: {
    summary: "Completed",
    value: {
      success: true,
      message: TASK_STATUS_MESSAGES.completed,
      task_id: EXAMPLE_TASK_ID,
      video_url: VIDEO_URL,
    },
  },
  failed: {
    summary: "Failed",
    value: { success: false, message: "UNSAFE_CONTENT", task_id: EXAMPLE_TASK_ID, video_url: null },
  },
  timeout: {
    summary: "Timed out",
    value: { success: false, message: "TIMEOUT", task_id: EXAMPLE_TASK_ID, video_url: null },
  },
};

export const ACCOUNT_EXAMPLE = {
  account_id: "5b0e7c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a",
  name: "default",
  credits: 998,
};

export const WEBHOOK_EVENT_LIST_EXAMPLE: WebhookEventList = {
  task_id: EXAMPLE_TASK_ID,
  events: [
    {
      id: EXAMPLE_EVENT_ID,
      url: "https://example.com/webhooks/genvideo",
      state: "delivered",
      attempt_count: 2,
      next_attempt_at: null,
      created_at: "2026-11-22T10:04:10.000Z",
      attempts: [
        {
          attempt: 1,
          started_at: "2026-11-22T10:04:10.000Z",
          duration_ms: 10004,
          status_code: null,
          error: "connect timeout",
        },
        {
          attempt: 2,
          started_at: "2026-11-22T10:04:50.004Z",
          duration_ms: 87,
          status_code: 200,
          error: null,
        },
      ],
    },
  ],
};

export const REDELIVERY_EXAMPLE = {
  success: true,
  message: WEBHOOK_REDELIVERY_MESSAGE,
  event_id: EXAMPLE_EVENT_ID,
};

/** A refused request and the issues the validator really reports for it. */
export const INVALID_REQUEST_EXAMPLE = { prompt: "A fox", start_frame: START_FRAME, colour: "red" };
export const VALIDATION_ISSUES_EXAMPLE: ValidationIssue[] = (() => {
  const result = validateGenerationRequest(INVALID_REQUEST_EXAMPLE);
  return result.success ? [] : result.issues;
})();

/** One example of each error, as the server words it; keyed by code, a code may have several. */
export const ERROR_EXAMPLES: Record<
  ErrorCode,
  { summary: string; message: string; issues?: ValidationIssue[] }[]
> = {
  INVALID_REQUEST: [
    {
      summary: "Body refused",
      message: validationMessage(VALIDATION_ISSUES_EXAMPLE),
      issues: VALIDATION_ISSUES_EXAMPLE,
    },
  ],
  INVALID_CALLBACK_URL: [
    {
      summary: "Callback not https",
      message: "callback_url must use https",
      issues: [{ path: "callback_url", message: "callback_url must use https" }],
    },
  ],
  INSUFFICIENT_CREDITS: [
    { summary: "Credits short", message: "This task costs 2 credits (gen-3); the account has 1." },
  ],
  NOT_FOUND: [{ summary: "No such task", message: "No task with this task_id exists for this account." }],
  METHOD_NOT_ALLOWED: [
    { summary: "Wrong method", message: "GET /api/gen/generate is not allowed; this path takes POST." },
  ],
  IDEMPOTENCY_IN_PROGRESS: [
    {
      summary: "First request still running",
      message: "A request with this Idempotency-Key is still being processed; retry after it has finished.",
    },
  ],
  PAYLOAD_TOO_LARGE: [
    {
      summary: "Body too large",
      message: `The request body is larger than ${REQUEST_BODY_MAX_BYTES / (1024 * 1024)} MiB.`,
    },
  ],
  UNSUPPORTED_MEDIA_TYPE: [{ summary: "Not JSON", message: "Content-Type must be application/json." }],
  IDEMPOTENCY_KEY_REUSED: [
    {
      summary: "Key used for another body",
      message:
        "This Idempotency-Key was already used with a different request body; use a new key for a new request.",
    },
  ],
  RATE_LIMITED: [
    { summary: "Limit spent", message: "Rate limit of 120 creations per minute exceeded; retry in 1 s." },
  ],
  INTERNAL_ERROR: [
    {
      summary: "Fault of the service",
      message: `Something went wrong on our side. Quote request id ${EXAMPLE_REQUEST_ID} when reporting it.`,
    },
  ],
  SERVICE_UNAVAILABLE: [{ summary: "Starting up", message: "The service is starting; retry in 1 s." }],
  DATABASE_UNAVAILABLE: [
    {
      summary: "Database out of reach",
      message: "The service cannot reach its database for a moment; retry in 2 s.",
    },
  ],
};

/** Examples that differ by route: the task-id check, reads' rate limit, redelivery without an event. */
export const TASK_ROUTE_ERROR_EXAMPLES: Partial<typeof ERROR_EXAMPLES> = {
  INVALID_REQUEST: [
    {
      summary: "task_id not a UUID",
      message: "task_id must be a UUID, as returned by POST /api/gen/generate.",
      issues: [{ path: "task_id", message: "must be a UUID" }],
    },
  ],
};
export const READ_RATE_LIMIT_EXAMPLES: Partial<typeof ERROR_EXAMPLES> = {
  RATE_LIMITED: [
    { summary: "Limit spent", message: "Rate limit of 1200 reads per minute exceeded; retry in 1 s." },
  ],
};
export const REDELIVERY_NOT_FOUND_EXAMPLES: Partial<typeof ERROR_EXAMPLES> = {
  NOT_FOUND: [
    ...ERROR_EXAMPLES.NOT_FOUND,
    {
      summary: "No callback_url",
      message: "This task has no callback_url, so there is no webhook to redeliver.",
    },
    {
      summary: "Not finished yet",
      message: "This task has not finished yet, so there is no webhook to redeliver.",
    },
  ],
};

export const VIDEO_ERROR_EXAMPLES = {
  INVALID_SIGNATURE: {
    summary: "Signature wrong or missing",
    value: {
      error: "Forbidden",
      code: "INVALID_SIGNATURE",
      message:
        "The video URL's signature is missing or does not match; use the video_url from the task status.",
    },
  },
  URL_EXPIRED: {
    summary: "URL expired",
    value: {
      error: "Forbidden",
      code: "URL_EXPIRED",
      message: "The video URL has expired; read the task status again for a fresh video_url.",
    },
  },
  NOT_FOUND: {
    summary: "Video gone",
    value: { error: "Not Found", code: "NOT_FOUND", message: "The video no longer exists." },
  },
  METHOD_NOT_ALLOWED: {
    summary: "Another method than GET or HEAD",
    value: {
      error: "Method Not Allowed",
      code: "METHOD_NOT_ALLOWED",
      message: "DELETE is not allowed on a video; it takes GET, HEAD.",
    },
  },
  RANGE_NOT_SATISFIABLE: {
    summary: "Range beyond the end",
    value: {
      error: "Range Not Satisfiable",
      code: "RANGE_NOT_SATISFIABLE",
      message: "The video has 48213 bytes.",
    },
  },
};

export const AUTH_ERROR_EXAMPLES = {
  invalidApiKey: {
    summary: "Key invalid",
    value: { error: "Unauthorized", message: AUTH_ERROR_MESSAGES.invalidApiKey },
  },
  missingAuthorization: {
    summary: "Authorization header missing",
    value: { error: "Unauthorized", message: AUTH_ERROR_MESSAGES.missingAuthorization },
  },
  malformedAuthorization: {
    summary: "Header malformed",
    value: { error: "Unauthorized", message: AUTH_ERROR_MESSAGES.malformedAuthorization },
  },
};
