import { afterEach, describe, expect, it, vi } from "vitest";
import {
  completed,
  created,
  errorBody,
  hang,
  json,
  networkFailure,
  type Reply,
  scriptedFetch,
  taskId,
} from "../test/support/fetch.js";
import { GenVideo } from "./client.js";
import { ConnectionError, RateLimitError, RequestTimeoutError, ServerError } from "./index.js";

function clientWith(replies: Reply[], options: { maxRetries?: number; timeout?: number } = {}) {
  const double = scriptedFetch(...replies);
  const client = new GenVideo({
    apiKey: "gen_sk_test",
    baseUrl: "http://api.test",
    fetch: double.fetch,
    ...options,
  });
  return { client, sent: double.sent };
}

// Retry-After: 0 keeps these tests fast without changing which rule decides.
const now = { "retry-after": "0" };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("retries of reads", () => {
  it.each([408, 409, 429, 500, 502, 503, 504, 599])("retries a GET answered %i", async (status) => {
    const { client, sent } = clientWith([errorBody(status, "X", "busy", now), json(completed)]);
    await expect(client.getStatus(taskId)).resolves.toEqual(completed);
    expect(sent).toHaveLength(2);
  });

  it.each([400, 401, 402, 403, 404, 413, 415, 422])("does not retry a GET answered %i", async (status) => {
    const { client, sent } = clientWith([errorBody(status, "X", "no", now), json(completed)]);
    await expect(client.getStatus(taskId)).rejects.toThrow();
    expect(sent).toHaveLength(1);
  });

  it("sends the key and accept on every attempt of a read", async () => {
    const { client, sent } = clientWith([
      errorBody(503, "X", "busy", now),
      networkFailure("ECONNRESET"),
      json(completed),
    ]);
    await expect(client.getStatus(taskId)).resolves.toEqual(completed);
    expect(sent.map((request) => Object.fromEntries(request.headers))).toEqual(
      Array(3).fill({ accept: "application/json", authorization: "Bearer gen_sk_test" }),
    );
  });

  it("retries a GET after a connection error of any kind", async () => {
    const { client, sent } = clientWith([
      networkFailure("ECONNRESET"),
      new TypeError("terminated"),
      json(completed),
    ]);
    await expect(client.getStatus(taskId)).resolves.toEqual(completed);
    expect(sent).toHaveLength(3);
  });

  it("stops after maxRetries and reports the last failure", async () => {
    const { client, sent } = clientWith([errorBody(503, "INTERNAL_ERROR", "down", now)], { maxRetries: 3 });
    await expect(client.getStatus(taskId)).rejects.toSatisfy(ServerError.isInstance);
    expect(sent).toHaveLength(4);
  });

  it("makes exactly one attempt when maxRetries is 0", async () => {
    const { client, sent } = clientWith([networkFailure("ECONNREFUSED")], { maxRetries: 0 });
    await expect(client.getStatus(taskId)).rejects.toSatisfy(ConnectionError.isInstance);
    expect(sent).toHaveLength(1);
  });
});

describe("retries of creates", () => {
  it("sends one Idempotency-Key per call and the same one on every retry", async () => {
    const { client, sent } = clientWith(
      [
        errorBody(500, "INTERNAL_ERROR", "x", now),
        networkFailure("ECONNRESET"),
        errorBody(409, "IDEMPOTENCY_IN_PROGRESS", "x", now),
        json(created),
      ],
      { maxRetries: 3 },
    );
    await expect(client.createTask({ prompt: "a fox" })).resolves.toEqual(created);
    const keys = sent.map((request) => request.headers.get("idempotency-key"));
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.every((request) => request.body === JSON.stringify({ prompt: "a fox" }))).toBe(true);
    // Every attempt carries the whole set of headers, not only the first.
    for (const request of sent)
      expect(Object.fromEntries(request.headers)).toEqual({
        accept: "application/json",
        authorization: "Bearer gen_sk_test",
        "content-type": "application/json",
        "idempotency-key": keys[0],
      });

    await client.createTask({ prompt: "a fox" });
    expect(sent[4]!.headers.get("idempotency-key")).not.toBe(keys[0]);
  });

  it("retries a create answered 503 DATABASE_UNAVAILABLE after its Retry-After, under its key", async () => {
    vi.useFakeTimers();
    const unavailable = () =>
      errorBody(
        503,
        "DATABASE_UNAVAILABLE",
        "The service cannot reach its database for a moment; retry in 2 s.",
        {
          "retry-after": "2",
        },
      );
    const { client, sent } = clientWith([unavailable(), unavailable(), json(created)], { maxRetries: 3 });
    const pending = client.createTask({ prompt: "a fox" }, { idempotencyKey: "order-7" });
    await vi.advanceTimersByTimeAsync(1990);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    await expect(pending).resolves.toEqual(created);
    expect(sent.map((request) => request.headers.get("idempotency-key"))).toEqual([
      "order-7",
      "order-7",
      "order-7",
    ]);
  });

  it("reports a 503 with its Retry-After once the retries ran out", async () => {
    const { client, sent } = clientWith(
      [errorBody(503, "DATABASE_UNAVAILABLE", "x", now), errorBody(503, "DATABASE_UNAVAILABLE", "x", now)],
      { maxRetries: 1 },
    );
    const error = await client.createTask({ prompt: "a fox" }).catch((caught: unknown) => caught);
    expect(ServerError.isInstance(error) && [error.status, error.code, error.retryAfter]).toEqual([
      503,
      "DATABASE_UNAVAILABLE",
      0,
    ]);
    expect(sent).toHaveLength(2);
  });

  it("uses the caller's idempotency key", async () => {
    const { client, sent } = clientWith([errorBody(429, "RATE_LIMITED", "slow", now), json(created)]);
    await client.createTask({ prompt: "a fox" }, { idempotencyKey: "order-42" });
    expect(sent.map((request) => request.headers.get("idempotency-key"))).toEqual(["order-42", "order-42"]);
  });

  it.each([
    ["a 500", errorBody(500, "INTERNAL_ERROR", "x", now)],
    ["a 429", errorBody(429, "RATE_LIMITED", "x", now)],
    ["a 408", errorBody(408, "X", "x", now)],
    ["a reset connection", networkFailure("ECONNRESET")],
    ["a closed socket", networkFailure("UND_ERR_SOCKET")],
    ["a terminated response", new TypeError("terminated")],
  ])("never retries a POST without a key after %s (the request may have arrived)", async (_, reply) => {
    const { client, sent } = clientWith([reply, json(created)]);
    await expect(client.createTask({ prompt: "a fox" }, { idempotencyKey: false })).rejects.toThrow();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.has("idempotency-key")).toBe(false);
  });

  it.each(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"])(
    "retries a POST without a key when %s proves it never left",
    async (code) => {
      const { client, sent } = clientWith([networkFailure(code), json(created)]);
      await expect(client.createTask({ prompt: "a fox" }, { idempotencyKey: false })).resolves.toEqual(
        created,
      );
      expect(sent).toHaveLength(2);
    },
  );
});

describe("backoff and Retry-After", () => {
  it.each([
    [0, 250, 500],
    [0.999, 500, 1000],
  ])(
    "backs off exponentially with jitter in the upper half (random %f: %i ms, then %i ms)",
    async (random, first, second) => {
      vi.useFakeTimers();
      vi.spyOn(Math, "random").mockReturnValue(random);
      const { client, sent } = clientWith([errorBody(503, "X"), errorBody(503, "X"), json(completed)]);
      const pending = client.getStatus(taskId);
      await vi.advanceTimersByTimeAsync(first - 5);
      expect(sent).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(10);
      expect(sent).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(second - 10);
      expect(sent).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(10);
      expect(sent).toHaveLength(3);
      await expect(pending).resolves.toEqual(completed);
    },
  );

  it.each([
    [0.99999, [500, 1000, 2000, 4000, 8000, 8000, 8000]],
    [0, [250, 500, 1000, 2000, 4000, 8000, 8000]],
  ])("caps each backoff wait at 8 s, after the jitter (random %f)", async (random, waits) => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(random);
    const { client, sent } = clientWith([errorBody(503, "X"), ...waits.map(() => errorBody(503, "X"))], {
      maxRetries: waits.length,
      timeout: 600_000,
    });
    const pending = client.getStatus(taskId).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ServerError.isInstance(await pending)).toBe(true);
    // To the nearest 10 ms: fake timers count whole milliseconds.
    const gaps = sent.slice(1).map((request, index) => Math.round((request.at - sent[index]!.at) / 10) * 10);
    expect(gaps).toEqual(waits);
  });

  it("waits as long as Retry-After says, on 429 and on 5xx", async () => {
    vi.useFakeTimers();
    const { client, sent } = clientWith([
      errorBody(429, "RATE_LIMITED", "slow", { "retry-after": "3" }),
      errorBody(503, "X", "busy", { "retry-after": "2" }),
      json(completed),
    ]);
    const pending = client.getStatus(taskId);
    await vi.advanceTimersByTimeAsync(2990);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    await expect(pending).resolves.toEqual(completed);
  });

  it("caps Retry-After at 60 s", async () => {
    vi.useFakeTimers();
    const { client, sent } = clientWith(
      [errorBody(503, "X", "busy", { "retry-after": "3600" }), json(completed)],
      { timeout: 600_000 },
    );
    const pending = client.getStatus(taskId);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_100);
    await expect(pending).resolves.toEqual(completed);
    expect(sent).toHaveLength(2);
  });

  it("reports a 429 at once when its Retry-After would outlast the call's timeout", async () => {
    const { client, sent } = clientWith(
      [errorBody(429, "RATE_LIMITED", "slow", { "retry-after": "30" }), json(completed)],
      { timeout: 5_000 },
    );
    const error = await client.getStatus(taskId).catch((caught: unknown) => caught);
    expect(RateLimitError.isInstance(error) && error.retryAfter).toBe(30_000);
    expect(sent).toHaveLength(1);
  });
});

describe("timeouts and aborts", () => {
  it("ends a call that gets no answer within its timeout", async () => {
    const { client, sent } = clientWith([hang]);
    // `hang` never answers: without the timeout this call would never end (the test's own timeout).
    const error = await client.getStatus(taskId, { timeout: 150 }).catch((caught: unknown) => caught);
    expect(RequestTimeoutError.isInstance(error) && error.timeout).toBe(150);
    expect(sent).toHaveLength(1);
  });

  it("ends a call whose body stalls after the headers, within the same timeout", async () => {
    const stalled = () => new Response(new ReadableStream({ start() {} }), { status: 200 });
    const { client } = clientWith([stalled]);
    const error = await client.getStatus(taskId, { timeout: 150 }).catch((caught: unknown) => caught);
    expect(RequestTimeoutError.isInstance(error)).toBe(true);
  });

  it("rejects with the caller's reason when aborted while the body is being read", async () => {
    const stalled = () => new Response(new ReadableStream({ start() {} }), { status: 200 });
    const { client } = clientWith([stalled]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user left")), 30);
    await expect(client.getStatus(taskId, { signal: controller.signal })).rejects.toThrow("user left");
  });

  it("rejects with the caller's reason when aborted during a request, without retrying", async () => {
    const { client, sent } = clientWith([hang, json(completed)]);
    const controller = new AbortController();
    const pending = client.createTask({ prompt: "a fox" }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user left")), 20);
    await expect(pending).rejects.toThrow("user left");
    expect(sent).toHaveLength(1);
  });

  it("rejects with the caller's reason when aborted during the pause between retries", async () => {
    const { client, sent } = clientWith(
      [errorBody(503, "X", "busy", { "retry-after": "30" }), json(completed)],
      {
        timeout: 120_000,
      },
    );
    // Waiting out the 30 s Retry-After would outlast the test's own timeout.
    const pending = client.getStatus(taskId, { signal: AbortSignal.timeout(50) });
    await expect(pending).rejects.toMatchObject({ name: "TimeoutError" });
    expect(sent).toHaveLength(1);
  });
});

describe("the reference server's startup 503", () => {
  /** What a server answers between listening and the end of its startup sweep (docs/api.md, "Errors"). */
  function startingUp(create = false): Response {
    return json(
      {
        ...(create ? { success: false } : {}),
        error: "Service Unavailable",
        code: "SERVICE_UNAVAILABLE",
        message: "The server is starting; retry in 1 s.",
        request_id: "req_start",
      },
      503,
      { "retry-after": "1", "x-request-id": "req_start" },
    );
  }

  it("retries a read after Retry-After", async () => {
    vi.useFakeTimers();
    const { client, sent } = clientWith([startingUp(), json(completed)]);
    const pending = client.getStatus(taskId);
    await vi.advanceTimersByTimeAsync(990);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    await expect(pending).resolves.toEqual(completed);
    expect(sent).toHaveLength(2);
  });

  it("retries a create with the same Idempotency-Key", async () => {
    vi.useFakeTimers();
    const { client, sent } = clientWith([startingUp(true), json(created)]);
    const pending = client.createTask({ prompt: "a fox" });
    await vi.advanceTimersByTimeAsync(1010);
    await expect(pending).resolves.toEqual(created);
    expect(sent).toHaveLength(2);
    const keys = sent.map((request) => request.headers.get("idempotency-key"));
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it("reports a ServerError with the request id when the server stays in startup", async () => {
    const { client, sent } = clientWith([startingUp(), startingUp(), startingUp()], { maxRetries: 0 });
    const error = await client.getStatus(taskId).catch((caught: unknown) => caught);
    expect(ServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 503, requestId: "req_start" });
    expect(sent).toHaveLength(1);
  });
});
