import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { isPlausibleApiKey } from "../keys/api-key.js";
import { createMemoryStore } from "../store/memory-store.js";
import { createAdminService } from "./admin-service.js";

const admin = () => createAdminService(createMemoryStore(), manualClock());

describe("bootstrap", () => {
  it("creates the default account with 1000 credits once, returning its key and secret only then", async () => {
    const service = admin();
    const first = await service.bootstrap();
    expect(first).toMatchObject({ created: true, account: { name: "default", credits: 1000 } });
    expect(await isPlausibleApiKey(first.apiKey!)).toBe(true);
    expect(first.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const second = await service.bootstrap();
    expect(second).toEqual({ created: false, account: first.account });
    expect(await service.listAccounts()).toHaveLength(1);
  });

  it("uses exactly a supplied key and secret", async () => {
    const service = admin();
    const result = await service.bootstrap({
      apiKey: "my-scripted_key-000000",
      webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    expect(result).toMatchObject({
      apiKey: "my-scripted_key-000000",
      webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    expect(await service.currentWebhookSecret(result.account.id)).toBe(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    );
  });

  it("adopts a newly supplied key and secret on a later start", async () => {
    const service = admin();
    const first = await service.bootstrap();
    await service.bootstrap({
      apiKey: "later-supplied-key-1234",
      webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    expect(await service.listApiKeys(first.account.id)).toHaveLength(2);
    expect(await service.currentWebhookSecret(first.account.id)).toBe(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    );
  });

  it.each([
    [{ apiKey: "too-short" }, /GENVIDEO_BOOTSTRAP_API_KEY/],
    [{ apiKey: "has spaces in it, sadly" }, /GENVIDEO_BOOTSTRAP_API_KEY/],
    [{ apiKey: `gen_sk_${"A".repeat(38)}` }, /checksum/],
    [{ webhookSecret: "not-a-secret" }, /GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET/],
    [{ webhookSecret: "whsec_AAAA" }, /16 to 64 bytes/],
  ])("refuses an unusable supplied value %o", async (options, message) => {
    await expect(admin().bootstrap(options)).rejects.toThrow(message);
  });
});

describe("accounts and credits", () => {
  it("keeps the balance equal to the ledger", async () => {
    const service = admin();
    const { account } = await service.createAccount("acme", 10);
    const credited = await service.creditAccount(account.id, 5);
    expect(credited.credits).toBe(15);
    const ledger = await service.listLedger(account.id);
    expect(ledger.reduce((sum, entry) => sum + entry.delta, 0)).toBe(15);
    expect(await service.getAccount("acme")).toMatchObject({ id: account.id, credits: 15 });
  });

  it("refuses duplicate names, bad amounts and unknown accounts", async () => {
    const service = admin();
    await service.createAccount("acme");
    await expect(service.createAccount("acme")).rejects.toThrow(/exists/);
    await expect(service.creditAccount("nope", 5)).rejects.toThrow(/no account/);
    await expect(service.createApiKey("nope")).rejects.toThrow(/no account/);
    const { account } = await service.createAccount("other");
    await expect(service.creditAccount(account.id, 0)).rejects.toThrow(/positive/);
    await expect(service.revokeApiKey("nope")).rejects.toThrow(/no API key/);
  });
});

describe("key names and lifetimes", () => {
  it("names the key the first start creates", async () => {
    const service = admin();
    const first = await service.bootstrap();
    expect((await service.listApiKeys(first.account.id)).map((key) => key.name)).toEqual(["first start"]);
  });

  it("gives a rotated key the lifetime the old one was made with; a key without expiry stays without", async () => {
    const clock = manualClock();
    const service = createAdminService(createMemoryStore(), clock);
    const { account } = await service.bootstrap();
    const thirtyDays = 30 * 86_400_000;
    const made = await service.createApiKey(account.id, {
      name: "monthly",
      expiresAt: clock.now() + thirtyDays,
    });
    clock.advance(86_400_000);
    const rotated = await service.rotateApiKey(made.apiKey.id, 3_600_000);
    expect(rotated.apiKey.expiresAt).toBe(clock.now() + thirtyDays);
    expect(rotated.previous.expiresAt).toBe(clock.now() + 3_600_000);

    const forever = await service.createApiKey(account.id, { name: "forever" });
    expect((await service.rotateApiKey(forever.apiKey.id, 0)).apiKey.expiresAt).toBeNull();
  });
});

describe("signing secrets", () => {
  it("lists every secret that signs now, newest first, until a rotated one's overlap ends", async () => {
    const clock = manualClock();
    const service = createAdminService(createMemoryStore(), clock);
    const { account, webhookSecret } = await service.bootstrap();
    expect((await service.signingSecrets(account.id)).map((s) => s.secret)).toEqual([webhookSecret]);
    clock.advance(1000);
    const rotatedAt = clock.now();
    const current = await service.rotateWebhookSecret(account.id, 3_600_000);
    const signing = await service.signingSecrets(account.id);
    expect(signing.map((s) => [s.secret, s.expiresAt])).toEqual([
      [current, null],
      [webhookSecret, rotatedAt + 3_600_000],
    ]);
    expect(signing[0]).not.toHaveProperty("accountId");
    clock.advance(3_600_000);
    expect((await service.signingSecrets(account.id)).map((s) => s.secret)).toEqual([current]);
  });
});
