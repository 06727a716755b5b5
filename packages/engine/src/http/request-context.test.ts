import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";
import type { RequestLogEntry } from "../config.js";
import type { HttpRequestEvent } from "../observer.js";
import type { Store } from "../ports.js";

/** A harness whose store fails every transaction with `failure` once `broken.now` is set. */
async function harnessWithAFailingStore(failure: unknown) {
  const requests: RequestLogEntry[] = [];
  const errors: { message: string; details: Record<string, unknown> }[] = [];
  const events: HttpRequestEvent[] = [];
  const broken = { now: false };
  const h = await createHarness(
    {
      logger: {
        request: (entry) => requests.push({ ...entry }),
        error: (message, details) => errors.push({ message, details }),
      },
    },
    {
      storeAround: (store): Store => ({
        transaction: (work) => (broken.now ? Promise.reject(failure) : store.transaction(work)),
        close: () => store.close(),
      }),
      observer: { httpRequest: (event) => events.push(event) },
    },
  );
  return { h, broken, requests, errors, events };
}

describe("a request's context", () => {
  it("answers a bug as a 500 quoting the request id, logged once with its stack, never sent", async () => {
    const { h, broken, requests, errors, events } = await harnessWithAFailingStore(new Error("disk on fire"));
    const taskId = await h.create({ prompt: "Fox" });
    requests.length = 0;
    events.length = 0;
    broken.now = true;
    for (const [method, path] of [
      ["GET", `/api/gen/status/${taskId}`],
      ["POST", "/api/gen/generate"],
    ] as const) {
      const response = await h.call(method, path, {
        headers: { "x-request-id": "req-bug" },
        ...(method === "POST" ? { body: { prompt: "Fox" } } : {}),
      });
      expect(response.status).toBe(500);
      expect(response.headers.get("x-request-id")).toBe("req-bug");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const body = await response.text();
      expect(JSON.parse(body)).toEqual({
        ...(method === "POST" ? { success: false } : {}),
        error: "Internal Server Error",
        code: "INTERNAL_ERROR",
        message: "Something went wrong on our side. Quote request id req-bug when reporting it.",
        request_id: "req-bug",
      });
      expect(body).not.toContain("disk on fire");
    }
    expect(errors.map(({ message, details }) => [message, details.requestId, details.method])).toEqual([
      ["unhandled error", "req-bug", "GET"],
      ["unhandled error", "req-bug", "POST"],
    ]);
    expect(errors[0]?.details.error).toContain("disk on fire");
    expect(requests.map(({ method, status, requestId }) => [method, status, requestId])).toEqual([
      ["GET", 500, "req-bug"],
      ["POST", 500, "req-bug"],
    ]);
    expect(events.map(({ route, status }) => [route, status])).toEqual([
      ["/api/gen/status/:task_id", 500],
      ["/api/gen/generate", 500],
    ]);
  });

  it("answers a failure that is not an Error the same way", async () => {
    const { h, broken, requests, errors } = await harnessWithAFailingStore("a bare string");
    broken.now = true;
    const response = await h.call("GET", "/api/gen/account", { headers: { "x-request-id": "req-odd" } });
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toBe("req-odd");
    expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR", request_id: "req-odd" });
    expect(errors.map(({ details }) => details.error)).toEqual(["a bare string"]);
    expect(requests.map(({ status }) => status)).toEqual([500]);
  });

  it("labels each answer with its route's template, a refusal before the route included", async () => {
    const { h, events } = await harnessWithAFailingStore(new Error("unused"));
    const taskId = await h.create({ prompt: "Fox" });
    events.length = 0;
    await h.call("GET", `/api/gen/status/${taskId}`);
    await h.call("GET", `/api/gen/status/${taskId}`, { key: null });
    await h.call("GET", "/api/gen/status/not-a-uuid");
    await h.call("DELETE", `/api/gen/status/${taskId}`);
    await h.call("GET", "/api/gen/nothing-here");
    await h.call("GET", "/elsewhere");
    expect(events.map(({ method, route, status }) => [method, route, status])).toEqual([
      ["GET", "/api/gen/status/:task_id", 200],
      ["GET", "/api/gen/status/:task_id", 401],
      ["GET", "/api/gen/status/:task_id", 400],
      ["DELETE", "unmatched", 405],
      ["GET", "unmatched", 404],
      ["GET", "unmatched", 404],
    ]);
  });

  it("authenticates /api itself and every path under it before its 404, and nothing outside", async () => {
    const h = await createHarness();
    for (const path of ["/api", "/api/", "/api/gen/nothing-here"]) {
      const response = await h.call("GET", path, { key: null });
      expect([path, response.status]).toEqual([path, 401]);
      expect(await response.json()).toMatchObject({ error: "Unauthorized" });
    }
    const outside = await h.call("GET", "/apix", { key: null });
    expect(outside.status).toBe(404);
    expect(await outside.json()).toEqual({
      error: "Not Found",
      code: "NOT_FOUND",
      message: "No endpoint GET /apix.",
    });
  });
});

describe("rate limits around a route", () => {
  it("put their headers on the route's refusals as on its answers", async () => {
    const h = await createHarness({ rateLimits: { enabled: true, readsPerMinute: 10 } });
    const missing = await h.call("GET", `/api/gen/status/${crypto.randomUUID()}`, {
      headers: { "x-request-id": "req-limited" },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("ratelimit-policy")).toBe('"read";q=10;w=60');
    expect(missing.headers.get("ratelimit")).toMatch(/^"read";r=9;t=\d+$/);
    expect(missing.headers.get("x-request-id")).toBe("req-limited");
    expect(await missing.json()).toMatchObject({ code: "NOT_FOUND" });
  });
});
