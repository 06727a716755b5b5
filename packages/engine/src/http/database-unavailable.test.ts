import { describe, expect, it } from "vitest";
import { createHarness, fakeVideoStorage } from "../../test/support/harness.js";
import { createEngine } from "../engine.js";
import type { Store } from "../ports.js";
import { StoreUnavailableError } from "../store/store-unavailable-error.js";

/** An engine on the harness's store that can lose its database at any moment. */
async function engineOnAFlakyDatabase() {
  const h = await createHarness();
  const logged: { level: string; message: string }[] = [];
  const database = { reachable: true };
  const store: Store = {
    transaction: (work) => {
      if (!database.reachable)
        return Promise.reject(
          new StoreUnavailableError("no answer from the database", { cause: new Error("x") }),
        );
      return h.store.transaction(work);
    },
    close: () => h.store.close(),
  };
  const engine = createEngine({
    store,
    clock: h.clock,
    renderer: h.renderer,
    videoStorage: fakeVideoStorage,
    sender: h.sender,
    config: {
      logger: {
        error: (message) => logged.push({ level: "error", message }),
        warn: (message) => logged.push({ level: "warn", message }),
      },
    },
  });
  const call = (method: string, path: string, body?: unknown) =>
    engine.app.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          "x-request-id": "req-cut",
          ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": "order-1" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  return { h, database, call, logged };
}

describe("a database out of reach", () => {
  it("answers 503 DATABASE_UNAVAILABLE with Retry-After on every API route, and logs no error", async () => {
    const { h, database, call, logged } = await engineOnAFlakyDatabase();
    const taskId = await h.create({ prompt: "Fox" });
    database.reachable = false;
    const routes = [
      ["POST", "/api/gen/generate", { prompt: "Fox" }],
      ["GET", `/api/gen/status/${taskId}`],
      ["GET", "/api/gen/account"],
      ["GET", `/api/gen/tasks/${taskId}/webhooks`],
      ["POST", `/api/gen/tasks/${taskId}/webhooks/redeliver`, {}],
    ] as const;
    for (const [method, path, body] of routes) {
      const response = await call(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(503);
      expect(response.headers.get("retry-after"), path).toBe("2");
      expect(response.headers.get("x-request-id"), path).toBe("req-cut");
      expect(await response.json(), path).toEqual({
        ...(path === "/api/gen/generate" ? { success: false } : {}),
        error: "Service Unavailable",
        code: "DATABASE_UNAVAILABLE",
        message: "The service cannot reach its database for a moment; retry in 2 s.",
        request_id: "req-cut",
      });
    }
    expect(logged).toEqual([]);
  });

  it("serves again, with the same Idempotency-Key, once the database answers", async () => {
    const { database, call } = await engineOnAFlakyDatabase();
    database.reachable = false;
    expect((await call("POST", "/api/gen/generate", { prompt: "Fox" })).status).toBe(503);
    database.reachable = true;
    const created = await call("POST", "/api/gen/generate", { prompt: "Fox" });
    expect(created.status).toBe(200);
    const replayed = await call("POST", "/api/gen/generate", { prompt: "Fox" });
    expect(await replayed.json()).toEqual(await created.json());
  });
});
