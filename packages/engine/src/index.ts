export * from "./admin/admin-service.js";
export {
  type CallbackTarget,
  checkCallbackUrlSyntax,
  isLocalhostName,
  parseCallbackUrl,
} from "./callback-url/callback-url-syntax.js";
export {
  type AddressCategory,
  classifyAddress,
  ipVersion,
  isPublicUnicastAddress,
  parseAddress,
} from "./callback-url/ip-address.js";
export * from "./clock.js";
export * from "./config.js";
export { bytesToBase64 } from "./crypto/web-crypto.js";
export { type Duration, parseDuration } from "./duration.js";
export * from "./engine.js";
export { ApiError, AUTH_MESSAGES, internalErrorBody, serviceUnavailableBody } from "./http/api-error.js";
export type { EngineEnv } from "./http/engine-env.js";
export { rateLimitedError } from "./http/rate-limit-middleware.js";
export type { RandomUUID } from "./ids.js";
export { apiKeyChecksum, generateApiKey, hashApiKey, isPlausibleApiKey } from "./keys/api-key.js";
export type { AuthFailure } from "./keys/authenticate.js";
export { generateWebhookSecret } from "./keys/webhook-secret.js";
export type * from "./ports.js";
export { createMemoryStore, MemoryStore, type MemoryStoreOptions } from "./store/memory-store.js";
export { type ForcedOutcome, ForceOutcomeError } from "./tasks/force-outcome.js";
export { ACTIVE_STATES } from "./tasks/lifecycle.js";
export { finishAtOf, scenarioOf } from "./tasks/scenario.js";
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
export { signWebhook, type WebhookSignatureHeaders } from "./webhooks/sign.js";
export type { WebhookEventWithAttempts } from "./webhooks/webhook-events.js";
