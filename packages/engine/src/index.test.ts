import { describe, expect, it } from "vitest";
import * as host from "./host.js";
import * as root from "./index.js";

// The entries' run-time exports, pinned: the root is what the two hosts (the reference server
// and the msw mock) import to run the service; a change here is a change of the public surface.
describe("package entries", () => {
  it("@genvideo/engine exports what a host needs to run the service", () => {
    expect(Object.keys(root).sort()).toEqual([
      "ACTIVE_STATES",
      "AdminError",
      "DEFAULT_ACCOUNT_NAME",
      "MemoryStore",
      "RateLimiterHeaders",
      "TINY_MP4_CONTENT_TYPE",
      "VideoUrlSigner",
      "assertTransactionOpen",
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
      "systemClock",
      "tinyMp4Bytes",
      "videoFromBytes",
    ]);
  });

  it("@genvideo/engine/host exports callback URL and address checks and key formats", () => {
    expect(Object.keys(host).sort()).toEqual([
      "checkCallbackUrlSyntax",
      "classifyAddress",
      "generateApiKey",
      "generateWebhookSecret",
      "hashApiKey",
      "ipVersion",
      "isLocalhostName",
      "isPlausibleApiKey",
      "isPublicUnicastAddress",
      "parseCallbackUrl",
    ]);
  });
});
