import { AUTH_ERROR_MESSAGES } from "@genvideo/schema";
import { describe, expect, it, vi } from "vitest";
import { createHarness } from "../../test/support/harness.js";
import { apiKeyChecksum } from "../keys/api-key.js";

const unauthorized = (message: string) => ({ error: "Unauthorized", message });

describe("authentication (docs/api.md#authentication)", () => {
  it("answers a missing header with exactly the documented body", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/account", { key: null });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.missingAuthorization));
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("treats an empty header as missing", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/account", { key: null, headers: { authorization: "  " } });
    expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.missingAuthorization));
  });

  it.each([
    ["a bare key", (key: string) => key],
    ["another scheme", (key: string) => `Basic ${key}`],
    ["no token", () => "Bearer"],
    ["two tokens", (key: string) => `Bearer ${key} extra`],
  ])("answers a malformed header (%s) with the format message", async (_, header) => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/account", {
      key: null,
      headers: { authorization: header(h.apiKey) },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.malformedAuthorization));
  });

  it("accepts the scheme in any case", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/account", {
      key: null,
      headers: { authorization: `bearer ${h.apiKey}` },
    });
    expect(response.status).toBe(200);
  });

  it("refuses unknown keys, bad checksums and odd characters alike", async () => {
    const h = await createHarness();
    const random = "A".repeat(32);
    const wellFormedUnknown = `gen_sk_${random}${await apiKeyChecksum(random)}`;
    const badChecksum = `${h.apiKey.slice(0, -1)}${h.apiKey.endsWith("0") ? "1" : "0"}`;
    for (const key of [wellFormedUnknown, badChecksum, "short", "has.dots*and*stars-more-than-twenty"]) {
      const response = await h.call("GET", "/api/gen/account", { key });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.invalidApiKey));
    }
  });

  it("refuses a key with a bad checksum without touching the store", async () => {
    const h = await createHarness();
    const original = h.store.transaction.bind(h.store);
    let transactions = 0;
    h.store.transaction = (work) => {
      transactions++;
      return original(work);
    };
    const badChecksum = `${h.apiKey.slice(0, -1)}${h.apiKey.endsWith("0") ? "1" : "0"}`;
    expect((await h.call("GET", "/api/gen/account", { key: badChecksum })).status).toBe(401);
    expect(transactions).toBe(0);
    expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
    expect(transactions).toBeGreaterThan(0);
  });

  it("never reads a key from the query string", async () => {
    const h = await createHarness();
    const response = await h.call("GET", `/api/gen/account?api_key=${h.apiKey}&key=${h.apiKey}`, {
      key: null,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.missingAuthorization));
  });

  it("runs before routing, media type and body checks", async () => {
    const h = await createHarness();
    for (const [method, path] of [
      ["GET", "/api/gen/nowhere"],
      ["DELETE", "/api/gen/generate"],
      ["POST", "/api/gen/generate"],
      ["GET", "/api/gen/status/not-a-uuid"],
    ] as const) {
      const response = await h.call(method, path, {
        key: null,
        rawBody: method === "POST" ? "{" : undefined,
      });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it("answers 404 NOT_FOUND to an authenticated unknown route, and outside /api without a key", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/nowhere");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: "Not Found", code: "NOT_FOUND" });
    const outside = await h.call("GET", "/favicon.ico", { key: null });
    expect(outside.status).toBe(404);
  });
});

describe("API key lifecycle", () => {
  it("refuses a revoked key from the next request on", async () => {
    const h = await createHarness();
    const { key, apiKey } = await h.engine.admin.createApiKey(h.accountId);
    expect((await h.call("GET", "/api/gen/account", { key })).status).toBe(200);
    await h.engine.admin.revokeApiKey(apiKey.id);
    const response = await h.call("GET", "/api/gen/account", { key });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.invalidApiKey));
  });

  it("refuses a revoked key whose hash is memoised, on reads and on creates", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "Fox" });
    const { key, apiKey } = await h.engine.admin.createApiKey(h.accountId);
    // Both requests memoise the key's hash; neither may memoise that the key is live.
    expect((await h.call("GET", `/api/gen/status/${taskId}`, { key })).status).toBe(200);
    expect((await h.call("POST", "/api/gen/generate", { key, body: { prompt: "Fox" } })).status).toBe(200);
    await h.engine.admin.revokeApiKey(apiKey.id);
    for (const [method, path, body] of [
      ["GET", `/api/gen/status/${taskId}`, undefined],
      ["GET", "/api/gen/account", undefined],
      ["POST", "/api/gen/generate", { prompt: "Fox" }],
    ] as const) {
      const response = await h.call(method, path, { key, ...(body ? { body } : {}) });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(unauthorized(AUTH_ERROR_MESSAGES.invalidApiKey));
    }
    expect((await h.call("GET", `/api/gen/status/${taskId}`)).status).toBe(200);
  });

  it("keeps a rotated key valid during the overlap only", async () => {
    const h = await createHarness();
    const [original] = await h.engine.admin.listApiKeys(h.accountId);
    const rotated = await h.engine.admin.rotateApiKey(original!.id, 60_000);
    expect(rotated.key).toMatch(/^gen_sk_[0-9A-Za-z]{38}$/);
    expect(rotated.previous.expiresAt).toBe(h.clock.now() + 60_000);
    expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
    expect((await h.call("GET", "/api/gen/account", { key: rotated.key })).status).toBe(200);
    h.clock.advance(60_000);
    expect((await h.call("GET", "/api/gen/account")).status).toBe(401);
    expect((await h.call("GET", "/api/gen/account", { key: rotated.key })).status).toBe(200);
  });

  it("lists keys without their hash and shows a key only at creation", async () => {
    const h = await createHarness();
    const created = await h.engine.admin.createApiKey(h.accountId);
    const listed = await h.engine.admin.listApiKeys(h.accountId);
    expect(listed).toHaveLength(2);
    for (const key of listed) {
      expect(key).not.toHaveProperty("hash");
      expect(JSON.stringify(key)).not.toContain(created.key);
    }
    expect(listed[1]?.prefix).toBe(created.key.slice(0, 11));
  });
});

describe("GETs on a store that runs transactions again", () => {
  it("authenticates in a transaction of its own and runs the route once, after it", async () => {
    // The harness's store rehearses: every transaction's work runs twice, as SQLite's may.
    const h = await createHarness();
    const taskId = await h.create({ prompt: "Fox" });
    const transaction = vi.spyOn(h.store, "transaction");
    const response = await h.call("GET", `/api/gen/status/${taskId}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ task_id: taskId, status: "queued" });
    // The key and the task in one read-only transaction, the route after it, never inside it.
    expect(transaction).toHaveBeenCalledTimes(1);
    expect((transaction.mock.calls[0] as unknown[])[1]).toEqual({ readOnly: true });
    transaction.mockClear();
    expect((await h.call("GET", "/api/gen/account")).status).toBe(200);
    // The key lookup, then the route's read.
    expect(transaction).toHaveBeenCalledTimes(2);
  });

  it("answers every outcome of a GET with exactly one X-Request-Id", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "Fox" });
    const cases = [
      [`/api/gen/status/${taskId}`, {}, 200],
      ["/api/gen/account", {}, 200],
      [`/api/gen/status/${crypto.randomUUID()}`, {}, 404],
      ["/api/gen/status/not-a-uuid", {}, 400],
      ["/api/gen/nothing-here", {}, 404],
      ["/api/gen/account", { key: null }, 401],
    ] as const;
    for (const [path, options, status] of cases) {
      const response = await h.call("GET", path, { ...options, headers: { "x-request-id": "trace-1" } });
      expect([path, response.status]).toEqual([path, status]);
      expect(response.headers.get("x-request-id")).toBe("trace-1");
    }
  });
});

describe("request log", () => {
  it("logs one line per request with its id, never the key, even one sent in the query", async () => {
    const entries: Record<string, unknown>[] = [];
    const h = await createHarness({ logger: { request: (entry) => entries.push({ ...entry }) } });
    await h.call("GET", `/api/gen/account?api_key=${h.apiKey}`);
    await h.call("GET", "/api/gen/account", { key: null });
    expect(entries).toEqual([
      {
        requestId: expect.stringMatching(/^req_/),
        method: "GET",
        path: "/api/gen/account",
        status: 200,
        durationMs: expect.any(Number),
        accountId: h.accountId,
      },
      {
        requestId: expect.stringMatching(/^req_/),
        method: "GET",
        path: "/api/gen/account",
        status: 401,
        durationMs: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(h.apiKey);
  });
});
