import { describe, expect, it } from "vitest";
import { liveWebhookSecrets } from "./webhook-secret.js";

describe("liveWebhookSecrets", () => {
  const current = { id: "current", createdAt: 3_000, expiresAt: null };
  const overlapping = { id: "overlapping", createdAt: 2_000, expiresAt: 5_000 };
  const ended = { id: "ended", createdAt: 1_000, expiresAt: 4_000 };

  it("keeps the secrets that sign at that time, newest first", () => {
    expect(liveWebhookSecrets([ended, current, overlapping], 4_500).map((s) => s.id)).toEqual([
      "current",
      "overlapping",
    ]);
  });

  it("drops a rotated-out secret the moment its overlap ends", () => {
    expect(liveWebhookSecrets([overlapping, current], 5_000).map((s) => s.id)).toEqual(["current"]);
    expect(liveWebhookSecrets([overlapping, current], 4_999).map((s) => s.id)).toEqual([
      "current",
      "overlapping",
    ]);
  });

  it("leaves the list it was given as it was", () => {
    const secrets = [ended, overlapping, current];
    liveWebhookSecrets(secrets, 0);
    expect(secrets.map((s) => s.id)).toEqual(["ended", "overlapping", "current"]);
  });
});
