/** The bytes every completed mock task's `video_url` serves: the engine's tiny, playable H.264 MP4 (64x36, 1 s). */
export { type Duration, parseDuration, tinyMp4Bytes as mockVideoBytes } from "@genvideo/engine";
export {
  createGenVideoMock,
  type GenVideoMock,
  type GenVideoMockClock,
  type GenVideoMockErrors,
  type GenVideoMockWebhooks,
} from "./create-genvideo-mock.js";
export type { ForcedError, ForcedErrorRoute } from "./forced-errors.js";
export type { GenVideoMockOptions, MockTiming } from "./mock-options.js";
export type { RecordedRequest } from "./request-log.js";
export type { MockScenario, MockTask, MockTaskControls } from "./task-controls.js";
export type { RecordedWebhook, WebhookDeliveryMode } from "./webhook-deliveries.js";
