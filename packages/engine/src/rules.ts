/**
 * `@genvideo/engine/rules`: the engine's rules that an embedder's own adapters
 * must keep too, one copy for the server and the mock. The server's SSRF-safe
 * webhook sender checks callback URLs and the addresses it connects to with
 * them; key formats are for embedders that make or import keys outside
 * `engine.admin`; which webhook secrets sign at a time is for embedders that
 * sign or show them themselves (the dashboard's test event and secrets page);
 * request ids are for the answers an embedder gives without the engine.
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
export { requestIdFor } from "./ids.js";
export { generateApiKey, hashApiKey, isPlausibleApiKey } from "./keys/api-key.js";
export { generateWebhookSecret, liveWebhookSecrets } from "./keys/webhook-secret.js";
