/**
 * `@genvideo/engine`: what an embedder needs to run the service (the
 * reference server and the msw mock are the two embedders). The rules an
 * embedder's own adapters must keep too (callback URL and IP address checks, key formats) are in
 * `@genvideo/engine/rules`; the store conformance suite is `@genvideo/engine/testing`.
 * `index.test.ts` pins this list.
 */
export type * from "./admin/admin-service.js";
export { AdminError, createAdminService, DEFAULT_ACCOUNT_NAME } from "./admin/admin-service.js";
export type * from "./clock.js";
export { manualClock, systemClock } from "./clock.js";
export type * from "./config.js";
export { type Duration, parseDuration } from "./duration.js";
export type * from "./engine.js";
export { createEngine } from "./engine.js";
export { internalErrorBody, serviceUnavailableBody } from "./http/api-error.js";
export type { EngineEnv } from "./http/engine-env.js";
export {
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterFactory,
  RateLimiterHeaders,
  rateLimitDecision,
} from "./http/rate-limiter.js";
export { rateLimitedError } from "./http/rate-limiting.js";
export type { RandomUUID } from "./ids.js";
export { chargeForKey } from "./keys/key-checked-charge.js";
export { NOSNIFF_HEADERS, setNoSniff } from "./no-sniff.js";
export type * from "./observer.js";
export type * from "./ports.js";
export { createMemoryStore, MemoryStore, type MemoryStoreOptions } from "./store/memory-store.js";
export { DATABASE_RETRY_AFTER_SECONDS, StoreUnavailableError } from "./store/store-unavailable-error.js";
export { assertTransactionOpen } from "./store/transaction-guard.js";
export type { ForcedOutcome } from "./tasks/force-outcome.js";
export { ACTIVE_STATES } from "./tasks/lifecycle.js";
export type { TaskPreset } from "./tasks/preset-task.js";
export type { TaskStatusBody } from "./tasks/status-view.js";
export type { TaskWorkReport } from "./tasks/task-worker.js";
export { TINY_MP4_CONTENT_TYPE, tinyMp4Bytes } from "./video/tiny-mp4.js";
export {
  type DownloadableVideo,
  serveVideoDownload,
  type VideoDownloadSource,
  videoFromBytes,
} from "./video/video-download.js";
export { type UrlCheck, VideoUrlSigner, type VideoUrlSignerOptions } from "./video/video-url-signer.js";
export type { WebhookEventWithAttempts } from "./webhooks/webhook-events.js";
