/** Paths and header names of the API, shared so that the server, the SDK and the docs cannot drift. */

/** Every path of the API, in OpenAPI template form (`{task_id}` is a task UUID). */
export const API_PATHS = {
  createTask: "/api/gen/generate",
  taskStatus: "/api/gen/status/{task_id}",
  account: "/api/gen/account",
  webhookEvents: "/api/gen/tasks/{task_id}/webhooks",
  webhookRedelivery: "/api/gen/tasks/{task_id}/webhooks/redeliver",
} as const;

/**
 * The signed video download of the reference server (`video_url` points here when videos are kept
 * on its disk), outside the API: no API key, the URL's signature is the credential.
 */
export const VIDEO_PATH = "/videos/{task_id}.mp4";

/** Optional header of the create request that makes a retry return the first response. */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** Id of a request, on every response (a client may send its own, to trace a call across both sides). */
export const REQUEST_ID_HEADER = "X-Request-Id";

/** Header of a create response that is the stored answer to an earlier request with the same Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** Headers of a 429 answer (IETF RateLimit fields plus `Retry-After`, in seconds). */
export const RATE_LIMIT_HEADERS = {
  retryAfter: "Retry-After",
  policy: "RateLimit-Policy",
  limit: "RateLimit",
} as const;

/** Standard Webhooks headers on every webhook request. */
export const WEBHOOK_HEADERS = {
  /** Event id, stable across the retries of one event (receivers deduplicate on it). */
  id: "webhook-id",
  /** Unix seconds of this attempt. */
  timestamp: "webhook-timestamp",
  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, space-separated when several secrets sign. */
  signature: "webhook-signature",
} as const;

/** Prefix of an account's webhook signing secret (`whsec_<base64>`). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Prefix of an API key (`gen_sk_` + 32 base62 characters + 6-character checksum). */
export const API_KEY_PREFIX = "gen_sk_";
