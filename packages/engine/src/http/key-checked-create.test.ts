import { describe, expect, it } from "vitest";
import { createHarness, keyCheckingStore } from "../../test/support/harness.js";
import type { EngineConfigInput } from "../config.js";
import { createMemoryStore } from "../store/memory-store.js";
import { StoreUnavailableError } from "../store/store-unavailable-error.js";
import { describeStoreContract } from "../testing/store-contract.js";

// The test double below keeps the contract a key-checking store (PostgreSQL) keeps.
describeStoreContract("memory store with key-checked creates", () =>
  keyCheckingStore(createMemoryStore({ rehearse: true })),
);

/** An engine on a store that checks a create's key in its write; `create` sends a body as HTTP clients do. */
async function keyCheckedEngine(config: EngineConfigInput = {}) {
  let store: ReturnType<typeof keyCheckingStore> | undefined;
  const logged: Record<string, unknown>[] = [];
  const h = await createHarness(
    { logger: { request: (record) => logged.push({ ...record }) }, ...config },
    // Not rehearsed: each key lookup counted is one the engine asked for.
    { rehearse: false, storeAround: (memory) => (store = keyCheckingStore(memory)) },
  );
  const calls = store!.calls;
  const create = (
    body: unknown,
    { key = h.apiKey, headers = {} }: { key?: string; headers?: Record<string, string> } = {},
  ) => {
    const json = JSON.stringify(body);
    return h.call("POST", "/api/gen/generate", {
      key,
      rawBody: json,
      headers: { "content-type": "application/json", "content-length": String(json.length), ...headers },
    });
  };
  /** What the create did: its status and body, and whether its key was checked in its write or looked up. */
  const path = async (response: Promise<Response>) => {
    const before = { ...calls };
    const answer = await response;
    return {
      status: answer.status,
      body: (await answer.json()) as Record<string, unknown>,
      keyChecked: calls.keyChecked - before.keyChecked,
      keyLookups: calls.keyLookups - before.keyLookups,
    };
  };
  return { h, store: store!, create, path, logged };
}

describe("a create whose key its write checks", () => {
  it("creates with one key-checked write, notes the key's use and logs its account", async () => {
    const { h, create, path, logged } = await keyCheckedEngine();
    const created = await path(create({ prompt: "a lighthouse" }));
    expect(created).toMatchObject({ status: 200, keyChecked: 1, keyLookups: 0 });
    const taskId = created.body.task_id as string;
    expect(await h.status(taskId)).toMatchObject({ status: "queued", task_id: taskId });
    expect(logged.at(-2)).toMatchObject({ method: "POST", status: 200, accountId: h.accountId });
    await h.engine.flushKeyUsage();
    const [key] = await h.engine.admin.listApiKeys(h.accountId);
    expect(key?.lastUsedAt).toBe(h.clock.now());
  });

  it("refuses a key revoked, expired or unknown with 401 from that write, writing nothing", async () => {
    const { h, create, path } = await keyCheckedEngine();
    const revoked = await h.engine.admin.createApiKey(h.accountId);
    expect((await path(create({ prompt: "x" }, { key: revoked.key }))).status).toBe(200);
    await h.engine.admin.revokeApiKey(revoked.apiKey.id);
    const expired = await h.engine.admin.createApiKey(h.accountId, { expiresAt: h.clock.now() + 1 });
    h.clock.advance(1);
    const credits = (await h.engine.admin.getAccount(h.accountId))!.credits;
    for (const key of [revoked.key, expired.key, "unknown_key_0123456789abcdefghij"]) {
      expect(await path(create({ prompt: "x" }, { key }))).toEqual({
        status: 401,
        body: { error: "Unauthorized", message: "Invalid API key" },
        keyChecked: 1,
        keyLookups: 0,
      });
    }
    expect((await h.engine.admin.getAccount(h.accountId))!.credits).toBe(credits);
    expect(await h.store.transaction((tx) => tx.countTasks())).toBe(1);
  });

  it("answers 401 before the request's own refusals, looking the key up only then", async () => {
    const { h, create, path } = await keyCheckedEngine({ maxBodyBytes: 1024 });
    const bad = "unknown_key_0123456789abcdefghij";
    const refusals: [body: unknown, headers: Record<string, string>, status: number][] = [
      [{ prompt: "" }, {}, 400],
      [{ prompt: "x", extra: 1 }, {}, 400],
      [{ prompt: "x" }, { "content-type": "text/plain" }, 415],
      [{ prompt: "x".repeat(2000) }, {}, 413],
    ];
    for (const [body, headers, status] of refusals) {
      expect(await path(create(body, { key: bad, headers }))).toMatchObject({
        status: 401,
        keyChecked: 0,
        keyLookups: 1,
      });
      const refused = await path(create(body, { headers }));
      expect(refused).toMatchObject({ status, keyChecked: 0, keyLookups: 1, body: { success: false } });
    }
    expect(await h.store.transaction((tx) => tx.countTasks())).toBe(0);
  });

  it("answers 402 with the balance from the same write, and creates nothing", async () => {
    const { h, create, path, logged } = await keyCheckedEngine();
    const { account } = await h.engine.admin.createAccount("poor", 1);
    const { key } = await h.engine.admin.createApiKey(account.id);
    expect(await path(create({ prompt: "x", model_type: "gen-3" }, { key }))).toEqual({
      status: 402,
      body: {
        success: false,
        error: "Payment Required",
        code: "INSUFFICIENT_CREDITS",
        message: "This task costs 2 credits (gen-3); the account has 1.",
      },
      keyChecked: 1,
      keyLookups: 0,
    });
    expect(logged.at(-1)).toMatchObject({ status: 402, accountId: account.id });
    expect(await h.store.transaction((tx) => tx.countTasks(account.id))).toBe(0);
  });

  it("answers 503 when the database is out of reach in that write", async () => {
    const { store, create, path } = await keyCheckedEngine();
    const unreachable = new StoreUnavailableError("no answer from the database", { cause: new Error("x") });
    store.failure = unreachable;
    const response = await create({ prompt: "x" });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe(String(unreachable.retryAfterSeconds));
    expect(await response.json()).toMatchObject({ success: false, code: "DATABASE_UNAVAILABLE" });
    store.failure = undefined;
    expect((await path(create({ prompt: "x" }))).status).toBe(200);
  });

  it("reads the key first where the create needs its account first, or its body is not small", async () => {
    const { h, create, path } = await keyCheckedEngine();
    const firstLookup = { status: 200, keyChecked: 0, keyLookups: 1 };
    // An Idempotency-Key's claim is the account's.
    expect(await path(create({ prompt: "x" }, { headers: { "idempotency-key": "order-1" } }))).toMatchObject(
      firstLookup,
    );
    // A callback URL is checked only for a live key.
    expect(await path(create({ prompt: "x", callback_url: "https://93.184.215.14/hook" }))).toMatchObject(
      firstLookup,
    );
    // Over 64 KiB, or of a length not declared, a body is not read before its key is known.
    const large = { prompt: "x", reference_images: [`data:image/png;base64,${"A".repeat(70_000)}`] };
    expect((await path(create(large))).keyLookups).toBe(1);
    expect(await path(h.call("POST", "/api/gen/generate", { body: { prompt: "x" } }))).toMatchObject(
      firstLookup,
    );
  });

  it("reads the key first when rate limits count per key", async () => {
    const { create, path } = await keyCheckedEngine({ rateLimits: { enabled: true } });
    expect(await path(create({ prompt: "x" }))).toMatchObject({ status: 200, keyChecked: 0, keyLookups: 1 });
  });
});
