import { AUTH_ERROR_MESSAGES } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../test/support/harness.js";

const WRONG_KEY = "a-wrong-bootstrap-style-key-of-32ch";
const invalid = { error: "Unauthorized", message: AUTH_ERROR_MESSAGES.invalidApiKey };

/** An engine whose embedder names the client in the `x-test-client` header (the server reads its socket). */
function limitedHarness(failedAuthPerMinute = 5): Promise<Harness> {
  return createHarness({
    rateLimits: { enabled: true, failedAuthPerMinute },
    clientAddress: (request) => request.headers.get("x-test-client") ?? undefined,
  });
}

function from(h: Harness, client: string, key: string | null = WRONG_KEY) {
  return h.call("GET", "/api/gen/account", { key, headers: { "x-test-client": client } });
}

describe("failed authentications per client (docs/api.md#authentication)", () => {
  it("answers 401 up to the limit, then 429 RATE_LIMITED with Retry-After before the key is read", async () => {
    const h = await limitedHarness(5);
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await from(h, "203.0.113.7");
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(invalid);
    }
    const refused = await from(h, "203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("12");
    expect(await refused.json()).toEqual({
      error: "Too Many Requests",
      code: "RATE_LIMITED",
      message: "Too many failed authentications from this address; retry in 12 s.",
    });
    // A valid key not seen lately waits too: otherwise 429 against 200 would still answer every guess.
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(429);
  });

  it("never holds back another client, with a valid key or a wrong one", async () => {
    const h = await limitedHarness(5);
    for (let attempt = 0; attempt < 50; attempt++) await from(h, "203.0.113.7");
    expect((await from(h, "198.51.100.9", h.apiKey)).status).toBe(200);
    const wrong = await from(h, "198.51.100.9");
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual(invalid);
  });

  it("gives a failure back as time passes, at the per-minute rate", async () => {
    const h = await limitedHarness(6);
    for (let attempt = 0; attempt < 7; attempt++) await from(h, "203.0.113.7");
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(429);
    h.wallClock.advance(10_000);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(200);
    expect((await from(h, "203.0.113.7")).status).toBe(401);
    expect((await from(h, "203.0.113.7")).status).toBe(429);
  });

  it("does not count a request without credentials, nor a valid key", async () => {
    const h = await limitedHarness(2);
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await from(h, "203.0.113.7", null)).status).toBe(401);
      expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(200);
    }
    expect((await from(h, "203.0.113.7")).status).toBe(401);
  });

  it("is off without an embedder naming the client, and with rate limits off", async () => {
    const anonymous = await createHarness({ rateLimits: { enabled: true, failedAuthPerMinute: 1 } });
    const off = await createHarness({
      rateLimits: { enabled: false, failedAuthPerMinute: 1 },
      clientAddress: () => "203.0.113.7",
    });
    for (const h of [anonymous, off]) {
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await h.call("GET", "/api/gen/account", { key: WRONG_KEY })).status).toBe(401);
      }
    }
  });
});

describe("failed authentications in flight at once", () => {
  it("let one failure through per failure given back, however many requests wait on it", async () => {
    const h = await limitedHarness(3);
    for (let attempt = 0; attempt < 4; attempt++) await from(h, "203.0.113.7");
    h.wallClock.advance(20_000); // one failure back
    const answers = await Promise.all(Array.from({ length: 50 }, () => from(h, "203.0.113.7")));
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([401, ...Array.from({ length: 49 }, () => 429)]);
  });

  it("never refuses a valid key's concurrent calls from a client that has not failed", async () => {
    const h = await limitedHarness(3);
    const answers = await Promise.all(Array.from({ length: 50 }, () => from(h, "203.0.113.7", h.apiKey)));
    expect(new Set(answers.map((response) => response.status))).toEqual(new Set([200]));
  });
});

describe("a key that authenticated lately", () => {
  it("is never held back by its client's failures, even in a burst", async () => {
    const h = await limitedHarness(5);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(200);
    for (let attempt = 0; attempt < 4; attempt++) await from(h, "203.0.113.7"); // typos: 1 failure left
    const answers = await Promise.all(Array.from({ length: 50 }, () => from(h, "203.0.113.7", h.apiKey)));
    expect(new Set(answers.map((response) => response.status))).toEqual(new Set([200]));
    for (let attempt = 0; attempt < 5; attempt++) await from(h, "203.0.113.7");
    // Spent: wrong keys wait, the known key still works.
    expect((await from(h, "203.0.113.7")).status).toBe(429);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(200);
  });

  it("is forgotten once it fails (revoked), and counts as a failure then", async () => {
    const h = await limitedHarness(2);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(200);
    const [key] = await h.engine.admin.listApiKeys(h.accountId);
    await h.engine.admin.revokeApiKey(key!.id);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(401);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(401);
    expect((await from(h, "203.0.113.7", h.apiKey)).status).toBe(429);
  });
});
