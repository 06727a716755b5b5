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

/** What the service says and does about one failure code. */
export interface FailureCodeEntry {
  /** What it tells a customer: the OpenAPI description and docs/api.md's table of failure codes. */
  readonly meaning: string;
  /** Whether the task's credits go back (once) when it fails with this code. */
  readonly refunded: boolean;
  /**
   * The prompt marker that forces it, on the reference server and the msw mock alike: the task then
   * fails with the code at its finish time (`[[fail:<CODE>]]`), or never finishes and fails when its
   * deadline passes (`[[timeout]]`, the deadline's code alone).
   */
  readonly marker: string;
}

/**
 * The failure codes, one entry each: the list every other one (refunds, prompt markers, the mock's
 * controls, the dashboard's explanations, the OpenAPI document, metrics labels) is derived from or
 * checked against by the compiler. Adding one: CONTRIBUTING.md, "A failure code".
 */
export const FAILURE_CATALOG = {
  UNSAFE_CONTENT: {
    meaning: "The request was refused as unsafe content.",
    refunded: false,
    marker: "[[fail:UNSAFE_CONTENT]]",
  },
  TIMEOUT: {
    meaning: "The task was not finished 10 minutes after creation (queue time counts).",
    refunded: true,
    marker: "[[timeout]]",
  },
  GENERATION_FAILED: {
    meaning: "The service failed to generate the video.",
    refunded: true,
    marker: "[[fail:GENERATION_FAILED]]",
  },
} as const satisfies Record<string, FailureCodeEntry>;

/** Codes a failed task carries in `message` (status endpoint) and in the webhook. */
export type FailureCode = keyof typeof FAILURE_CATALOG;
/** The failure codes, in the catalog's order. */
export const FAILURE_CODES: readonly [FailureCode, ...FailureCode[]] = Object.keys(FAILURE_CATALOG) as [
  FailureCode,
  ...FailureCode[],
];
/** The codes a task fails with at its finish time, each forced by its `[[fail:<CODE>]]` marker. */
export type FinishFailureCode = {
  [Code in FailureCode]: (typeof FAILURE_CATALOG)[Code]["marker"] extends "[[timeout]]" ? never : Code;
}[FailureCode];

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
