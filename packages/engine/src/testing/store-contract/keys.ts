import { expect, it } from "vitest";
import type { Store } from "../../ports.js";
import { MINUTE, T0 } from "./fixtures.js";

/** API keys and webhook secrets. */
export function keys(current: () => Store): void {
  it("finds API keys by hash and records revocation and expiry", async () => {
    const store = current();
    const key = {
      id: "key-1",
      accountId: "acc-1",
      hash: "a".repeat(64),
      prefix: "gen_sk_AbCd",
      createdAt: T0,
      revokedAt: null,
      expiresAt: null,
      name: "ci",
      lastUsedAt: null,
    };
    await store.transaction((tx) => tx.insertApiKey(key));
    expect(await store.transaction((tx) => tx.getApiKeyByHash(key.hash))).toEqual(key);
    expect(await store.transaction((tx) => tx.getApiKey("key-1"))).toEqual(key);
    expect(await store.transaction((tx) => tx.getApiKey("key-2"))).toBeUndefined();
    await store.transaction((tx) => tx.updateApiKey("key-1", { revokedAt: T0 + 5 }));
    await store.transaction((tx) => tx.updateApiKey("key-1", { expiresAt: T0 + 9 }));
    await store.transaction((tx) => tx.updateApiKey("key-1", { lastUsedAt: T0 + 7 }));
    expect(await store.transaction((tx) => tx.listApiKeys("acc-1"))).toEqual([
      { ...key, revokedAt: T0 + 5, expiresAt: T0 + 9, lastUsedAt: T0 + 7 },
    ]);
    expect(await store.transaction((tx) => tx.getApiKeyByHash("b".repeat(64)))).toBeUndefined();
  });

  it("keeps webhook secrets per account", async () => {
    const store = current();
    const secret = { id: "ws-1", accountId: "acc-1", secret: "whsec_AAAA", createdAt: T0, expiresAt: null };
    await store.transaction((tx) => tx.insertWebhookSecret(secret));
    await store.transaction((tx) => tx.updateWebhookSecret("ws-1", { expiresAt: T0 + MINUTE }));
    expect(await store.transaction((tx) => tx.listWebhookSecrets("acc-1"))).toEqual([
      { ...secret, expiresAt: T0 + MINUTE },
    ]);
  });
}
