export * from "./admin/admin-service.js";
export * from "./clock.js";
export * from "./config.js";
export * from "./engine.js";
export {
  ApiError,
  AUTH_MESSAGES,
  type AuthFailure,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
} from "./http/api-error.js";
export type { EngineEnv } from "./http/engine-env.js";
export { API_KEY_PREFIX, generateApiKey, hashApiKey, isPlausibleApiKey } from "./keys/api-key.js";
export { generateWebhookSecret, WEBHOOK_SECRET_PREFIX } from "./keys/webhook-secret.js";
export type * from "./ports.js";
export { createMemoryStore, MemoryStore } from "./store/memory-store.js";
export { scenarioOf } from "./tasks/scenario.js";
export type { TaskStatusBody } from "./tasks/status-view.js";
export type { TaskWorkReport } from "./tasks/task-worker.js";
export { COMPLETED_MESSAGE, type WebhookPayload } from "./webhooks/payload.js";
export { signWebhook, type WebhookSignatureHeaders } from "./webhooks/sign.js";
export type { WebhookEventWithAttempts } from "./webhooks/webhook-events.js";
