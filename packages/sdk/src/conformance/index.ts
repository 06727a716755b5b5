export type { ConformanceOutcome } from "./check.js";
export {
  type CheckDeploymentOptions,
  type ConformanceCheck,
  type ConformanceReport,
  checkDeployment,
  DeploymentUnreachableError,
} from "./check-deployment.js";
export type { ReceivedWebhookRequest, WebhookInbox } from "./create-checks.js";
export type { ConformanceAnswer, ConformanceRequest } from "./exchange.js";
export { formatConformanceReport } from "./format-report.js";
