import { describe, expect, it } from "vitest";
import * as root from "./index.js";
import * as rules from "./rules.js";

// The entries' run-time exports, pinned: the root is what the two embedders (the reference server
// and the msw mock) import to run the service; a change here is a change of the public surface.
describe("package entries", () => {
  it("@genvideo/engine exports what an embedder needs to run the service", () => {
    expect(Object.keys(root).sort()).toEqual([
      "ACTIVE_STATES",
      "AdminError",
      "DATABASE_RETRY_AFTER_SECONDS",
      "DEFAULT_ACCOUNT_NAME",
      "MemoryStore",
      "NOSNIFF_HEADERS",
      "RateLimiterHeaders",
      "StoreUnavailableError",
      "TINY_MP4_CONTENT_TYPE",
      "VideoUrlSigner",
      "assertTransactionOpen",
      "chargeForKey",
      "createAdminService",
      "createEngine",
      "createMemoryStore",
      "internalErrorBody",
      "manualClock",
      "parseDuration",
      "rateLimitDecision",
      "rateLimitedError",
      "serveVideoDownload",
      "serviceUnavailableBody",
      "setNoSniff",
      "systemClock",
      "tinyMp4Bytes",
      "videoFromBytes",
    ]);
  });

  it("@genvideo/engine/rules exports callback URL and address checks, key formats, live secrets and request ids", () => {
    expect(Object.keys(rules).sort()).toEqual([
      "checkCallbackUrlSyntax",
      "classifyAddress",
      "generateApiKey",
      "generateWebhookSecret",
      "hashApiKey",
      "ipVersion",
      "isLocalhostName",
      "isPlausibleApiKey",
      "isPublicUnicastAddress",
      "liveWebhookSecrets",
      "parseCallbackUrl",
      "requestIdFor",
    ]);
  });
});
