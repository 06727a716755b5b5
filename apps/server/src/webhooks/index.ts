export { type AddressCategory, classifyAddress, isPublicUnicastAddress } from "@genvideo/engine/host";
export {
  type CallbackTarget,
  type CallbackUrlPolicy,
  type CallbackUrlVerdict,
  createCallbackUrlValidator,
  parseCallbackUrl,
  validateCallbackUrl,
} from "./callback-url.js";
export {
  RefusedAddressError,
  type ResolvedAddress,
  type ResolveHost,
  refusedAddressCode,
  resolveWithSystemDns,
} from "./host-resolver.js";
export {
  type ClosableWebhookSender,
  createWebhookSender,
  type WebhookSenderOptions,
} from "./webhook-sender.js";
export {
  createWebhookTransport,
  type WebhookTransport,
  type WebhookTransportOptions,
} from "./webhook-transport.js";
