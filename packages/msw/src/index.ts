export {
  createGenVideoMock,
  type GenVideoMock,
  type GenVideoMockClock,
  type GenVideoMockErrors,
  type GenVideoMockWebhooks,
} from "./create-genvideo-mock.js";
export { type Duration, parseDuration } from "./duration.js";
export type { ForcedError, ForcedErrorRoute } from "./forced-errors.js";
export type { GenVideoMockOptions, MockTiming } from "./mock-options.js";
export { mockVideoBytes } from "./mock-video.js";
export type { RecordedRequest } from "./request-log.js";
export type { MockScenario, MockTask, MockTaskControls } from "./task-controls.js";
export type { RecordedWebhook, WebhookDeliveryMode } from "./webhook-deliveries.js";
