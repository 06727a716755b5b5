/**
 * Example values of the OpenAPI document. The images are header-only JPEG/PNG data URIs that pass
 * the request checks (a test keeps every request example valid), not pictures worth rendering.
 */

import { TASK_CREATED_MESSAGE, TASK_STATUS_MESSAGES, WEBHOOK_REDELIVERY_MESSAGE } from "./catalog.js";
import { AUTH_ERROR_MESSAGES, type ErrorCode } from "./error-codes.js";
import type { GenerationRequestInput } from "./request.js";
import type { TaskStatusResponse } from "./responses.js";
import type { WebhookPayload } from "./webhook.js";
import type { WebhookEventList } from "./webhook-events.js";

export const EXAMPLE_TASK_ID = "3f1c2b9e-8a4d-4c7e-9b21-5d6e7f809a1b";
const START_FRAME = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/wAARCALQBQADASIAAhEBAxEB/9k=";
const END_FRAME = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/wAARCAQ4B4ADASIAAhEBAxEB/9k=";
const REFERENCE_IMAGE = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAABAAAAAQACAIAAAAAAAAA";
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

export const ACCOUNT_EXAMPLE = { account_id: "acct_01JD8K2M4N", name: "default", credits: 998 };

export const WEBHOOK_EVENT_LIST_EXAMPLE: WebhookEventList = {
  task_id: EXAMPLE_TASK_ID,
  events: [
    {
      id: "msg_2pB7xQk9TzVc1",
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
  event_id: "msg_2pB7xQk9TzVc1",
};

/** A human message for each error code, as the examples show it. */
export const ERROR_EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  INVALID_REQUEST: "The request is invalid; see issues.",
  INVALID_CALLBACK_URL: "callback_url must use https and point to a public address.",
  INSUFFICIENT_CREDITS: "The account has 0 credits; gen-3 costs 2.",
  NOT_FOUND: "Task not found.",
  IDEMPOTENCY_IN_PROGRESS: "A request with this Idempotency-Key is still being processed; retry later.",
  PAYLOAD_TOO_LARGE: "The request body is larger than 64 MiB.",
  UNSUPPORTED_MEDIA_TYPE: "Send the body as JSON with Content-Type: application/json.",
  IDEMPOTENCY_KEY_REUSED: "This Idempotency-Key was used with a different request body.",
  RATE_LIMITED: "Too many requests; retry after the time in Retry-After.",
  INTERNAL_ERROR: "Something went wrong on our side; quote request id req_7Hq2 if it persists.",
  SERVICE_UNAVAILABLE: "The service is starting; retry after the time in Retry-After.",
};

export const VALIDATION_ISSUES_EXAMPLE = [
  {
    path: "end_frame",
    message: "end_frame is required with start_frame: a frame-to-frame request needs both frames.",
  },
  { path: "reference_images.2", message: "The image is 5000×3000 px; each side may be at most 4096 px." },
];

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
