/** Models the service offers, with what one task costs in credits. */
export const MODELS = {
  "gen-3-fast": { credits: 1 },
  "gen-3": { credits: 2 },
} as const satisfies Record<string, { credits: number }>;

export type ModelType = keyof typeof MODELS;
export const MODEL_TYPES: readonly ModelType[] = Object.keys(MODELS) as ModelType[];
export const DEFAULT_MODEL_TYPE: ModelType = "gen-3-fast";

export const ASPECT_RATIOS = ["16:9", "9:16", "1:1"] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const DEFAULT_ASPECT_RATIO: AspectRatio = "16:9";

/** Codes a failed task carries in `message` (status endpoint) and in the webhook. */
export const FAILURE_CODES = ["UNSAFE_CONTENT", "TIMEOUT", "GENERATION_FAILED"] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** Status strings a task reports; clients must treat any other value as not finished. */
export const TASK_STATUSES = ["queued", "processing", "completed", "failed"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Text of a successful create response. */
export const TASK_CREATED_MESSAGE = "Task created";

/** Suggested human-readable `message` of each unfinished or successful status (and of the success webhook). */
export const TASK_STATUS_MESSAGES = {
  queued: "Task is queued",
  processing: "Video is being generated",
  completed: "Video generated successfully",
} as const;

/** Where one webhook event stands: being tried, answered with a 2xx, or given up after the last attempt. */
export const WEBHOOK_DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

/** Text of a successful webhook redelivery request. */
export const WEBHOOK_REDELIVERY_MESSAGE = "Webhook redelivery queued";
