/**
 * `@genvideo/engine/host`: rules a host's own adapters need beside the engine,
 * one copy for every host. The server's SSRF-safe webhook sender checks
 * callback URLs and the addresses it connects to with them; key formats are
 * for hosts that make or import keys outside `engine.admin`.
 */
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
} from "./callback-url/ip-address.js";
export { generateApiKey, hashApiKey, isPlausibleApiKey } from "./keys/api-key.js";
export { generateWebhookSecret } from "./keys/webhook-secret.js";
