/**
 * The numbers of the contract (docs/api.md#limits, with #idempotency, #rate-limits and #webhooks).
 * One constant each, so that a consumer importing one of them pulls in nothing else.
 */

const KIBIBYTE = 1024;
const MEBIBYTE = 1024 * KIBIBYTE;
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** Shortest prompt, counted in Unicode code points after trimming. */
export const PROMPT_MIN_LENGTH = 1;
/** Longest prompt, counted in Unicode code points after trimming (as JSON Schema counts `maxLength`). */
export const PROMPT_MAX_LENGTH = 2000;

/** Media types an image data URI may declare. */
export const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
/** Largest decoded image, in bytes (10 MiB). */
export const IMAGE_MAX_BYTES: number = 10 * MEBIBYTE;
/** Largest width or height of an image, in pixels. */
export const IMAGE_MAX_SIDE_PX = 4096;

/** Fewest reference images a reference request carries. */
export const REFERENCE_IMAGES_MIN_COUNT = 1;
/** Most reference images a reference request carries. */
export const REFERENCE_IMAGES_MAX_COUNT = 4;

/** Longest `callback_url`, in characters. */
export const CALLBACK_URL_MAX_LENGTH = 2048;

/**
 * Largest create request body, in bytes: what the largest valid request needs, rounded up to a
 * whole MiB. That is a reference request: four images of `IMAGE_MAX_BYTES` as base64 data URIs
 * (4 × 13 981 042 bytes with their `data:image/jpeg;base64,` prefix, quotes and comma), the longest
 * prompt with every character escaped (24 000 bytes), the longest `callback_url` escaped
 * (12 288 bytes) and the field names: 53.4 MiB. 54 MiB leaves 0.6 MiB for whitespace.
 */
export const REQUEST_BODY_MAX_BYTES: number = 54 * MEBIBYTE;

/**
 * Most values a create request body holds inside its arrays and objects (each element and each
 * member counts one), counted before the body is parsed. A valid request holds about a dozen;
 * parsing millions of tiny values would cost seconds and gigabytes at any body size the images need.
 */
export const REQUEST_BODY_MAX_VALUES = 10_000;

/** Most issues the `issues` of a 400 `INVALID_REQUEST` lists; its `message` counts them all. */
export const VALIDATION_ISSUES_MAX_COUNT = 20;

/** Longest `Idempotency-Key` header value, in characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long an idempotency key is remembered per account. */
export const IDEMPOTENCY_KEY_TTL_MS: number = 24 * HOUR_MS;

/** A task not finished this long after creation (queue time counts) fails with `TIMEOUT`. */
export const TASK_DEADLINE_MS: number = 10 * MINUTE_MS;

/** Attempts to deliver one webhook event before it is marked `failed`. */
export const WEBHOOK_MAX_ATTEMPTS = 5;
/** Time between a failed webhook attempt and the next one. */
export const WEBHOOK_RETRY_SPACING_MS: number = 30 * SECOND_MS;
/** A webhook attempt that has not answered after this long has failed. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS: number = 30 * SECOND_MS;
/** A webhook attempt whose connection is not open after this long has failed. */
export const WEBHOOK_CONNECT_TIMEOUT_MS: number = 10 * SECOND_MS;
/** Most bytes of a webhook receiver's response that are read (and recorded). */
export const WEBHOOK_RESPONSE_MAX_BYTES: number = 64 * KIBIBYTE;

/** Default lifetime of a signed video URL (7 days). */
export const VIDEO_URL_TTL_MS: number = 7 * 24 * HOUR_MS;

/** Default rate limit of task creations, per API key and minute. */
export const RATE_LIMIT_CREATES_PER_MINUTE = 120;
/** Default rate limit of status reads, per API key and minute. */
export const RATE_LIMIT_STATUS_READS_PER_MINUTE = 1200;
/** Default limit of failed API authentications, per client address and minute (then 429). */
export const RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE = 20;
