import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";

describe("rate limits", () => {
  it("answers 429 RATE_LIMITED with Retry-After once a key's create bucket is empty", async () => {
    const h = await createHarness({ rateLimits: { enabled: true, createsPerMinute: 3 } });
    for (let index = 0; index < 3; index++) {
      const response = await h.call("POST", "/api/gen/generate", { body: { prompt: `fox ${index}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"create";q=3;w=60');
      expect(response.headers.get("ratelimit")).toMatch(new RegExp(`^"create";r=${2 - index};t=\\d+$`));
    }
    const refused = await h.call("POST", "/api/gen/generate", { body: { prompt: "fox" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("20");
    expect(refused.headers.get("ratelimit-policy")).toBe('"create";q=3;w=60');
    expect(await refused.json()).toMatchObject({
      success: false,
      error: "Too Many Requests",
      code: "RATE_LIMITED",
    });
    // Reads have their own bucket.
    expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
    // The bucket refills with wall time.
    h.wallClock.advance(20_000);
    expect((await h.call("POST", "/api/gen/generate", { body: { prompt: "fox" } })).status).toBe(200);
  });

  it("limits status reads per key, each key on its own", async () => {
    const h = await createHarness({ rateLimits: { enabled: true, readsPerMinute: 2 } });
    const { key } = await h.engine.admin.createApiKey(h.accountId);
    expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
    expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
    const refused = await h.call("GET", "/api/gen/account");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(await refused.json()).not.toHaveProperty("success");
    expect((await h.call("GET", "/api/gen/account", { key })).status).toBe(200);
  });

  it("can be switched off", async () => {
    const h = await createHarness({ rateLimits: { enabled: false, readsPerMinute: 1 } });
    for (let index = 0; index < 5; index++)
      expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
  });
});
