export {
  type CheckWebhookReceiverOptions,
  checkWebhookReceiver,
  SLOW_ANSWER_MS,
  type WebhookCheckCase,
  type WebhookReceiverReport,
} from "./check-webhook-receiver.js";
export type { WebhookCheckAnswer, WebhookReceiverTarget } from "./deliver.js";
export { formatWebhookCheckReport } from "./format-report.js";
export type { WebhookCheckGrade } from "./grade.js";
export { UNKNOWN_TASK_ID, WEBHOOK_CHECK_HEADER } from "./receiver-cases.js";
