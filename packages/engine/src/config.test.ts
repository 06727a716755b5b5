import { describe, expect, it } from "vitest";
import { httpsOnlyCallbackUrl, resolveEngineConfig } from "./config.js";

describe("resolveEngineConfig", () => {
  it("fills in the documented defaults", () => {
    const config = resolveEngineConfig();
    expect(config).toMatchObject({
      generationMs: 60_000,
      taskDeadlineMs: 600_000,
      rateLimits: { enabled: true, createsPerMinute: 120, readsPerMinute: 1200 },
      webhooks: { maxAttempts: 5, retryDelayMs: 30_000 },
      maxBodyBytes: 54 * 1024 * 1024,
      idempotencyTtlMs: 24 * 60 * 60_000,
    });
  });

  it("merges nested policies and allows instant generation", () => {
    const config = resolveEngineConfig({
      generationMs: 0,
      rateLimits: { enabled: false },
      webhooks: { maxAttempts: 2 },
    });
    expect(config.generationMs).toBe(0);
    expect(config.rateLimits).toEqual({
      enabled: false,
      createsPerMinute: 120,
      readsPerMinute: 1200,
      failedAuthPerMinute: 20,
    });
    expect(config.webhooks.maxAttempts).toBe(2);
    expect(config.webhooks.retryDelayMs).toBe(30_000);
  });

  it("names the setting that is wrong", () => {
    expect(() => resolveEngineConfig({ workerConcurrency: 0 })).toThrow(/workerConcurrency/);
    expect(() => resolveEngineConfig({ generationMs: -1 })).toThrow(/generationMs/);
    expect(() => resolveEngineConfig({ webhooks: { maxAttempts: Number.NaN } })).toThrow(
      /webhooks.maxAttempts/,
    );
  });
});

describe("httpsOnlyCallbackUrl", () => {
  it("is the shared syntax policy: https, no credentials, no literal host that is not public", async () => {
    expect(await httpsOnlyCallbackUrl("https://10.0.0.8/hook")).toEqual({
      ok: false,
      reason: "callback_url host 10.0.0.8 is not a public address (private)",
    });
    expect(await httpsOnlyCallbackUrl("https://user:pw@example.com/")).toEqual({
      ok: false,
      reason: "callback_url must not contain credentials",
    });
  });

  it("accepts https and refuses the rest with a reason", async () => {
    expect(await httpsOnlyCallbackUrl("https://example.com/hook")).toEqual({ ok: true });
    expect(await httpsOnlyCallbackUrl("http://example.com/hook")).toEqual({
      ok: false,
      reason: "callback_url must use https",
    });
    expect(await httpsOnlyCallbackUrl("https://user:pw@example.com/")).toMatchObject({ ok: false });
    expect(await httpsOnlyCallbackUrl("not a url")).toMatchObject({ ok: false });
  });
});
