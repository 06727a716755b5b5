/**
 * The mock under msw/node: service time, outcome controls, scenarios, forced
 * errors, the request log, video URLs, `server.use()` overrides and reset.
 */
import { FAILURE_CATALOG, FAILURE_CODES } from "@genvideo/schema";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createGenVideoMock, type GenVideoMock } from "../src/index.js";
import { api, create, credits, status } from "./support/http.js";

const mock = createGenVideoMock({ baseUrl: "https://api.genvideo.test", seed: "controls" });
const server = setupServer(...mock.handlers);

beforeAll(() => server.listen({ onUnhandledFrame: "error" }));
afterEach(async () => {
  server.resetHandlers();
  await mock.reset();
});
afterAll(() => server.close());

describe("service time", () => {
  it("moves only with clock.advance, and completes on schedule", async () => {
    const start = mock.clock.now().getTime();
    const id = await create(mock, { prompt: "a lighthouse at dusk" });
    expect(await status(mock, id)).toMatchObject({ status: "processing", progress: 0 });
    await mock.clock.advance("30s");
    expect(await status(mock, id)).toMatchObject({ status: "processing", progress: 50 });
    expect(mock.clock.now().getTime()).toBe(start + 30_000);
    await mock.clock.advance("30s");
    expect(await status(mock, id)).toMatchObject({ status: "completed", progress: 100 });
  });

  it("times a [[timeout]] task out at the 10-minute deadline and refunds it", async () => {
    const id = await create(mock, { prompt: "never ends [[timeout]]" });
    expect(await credits(mock)).toBe(999);
    await mock.clock.advance("9m59s");
    expect((await status(mock, id)).status).toBe("processing");
    await mock.clock.advance("1s");
    expect(await status(mock, id)).toMatchObject({ status: "failed", message: "TIMEOUT", video_url: null });
    expect(await credits(mock)).toBe(1000);
  });

  it("follows the timing options", async () => {
    const fast = createGenVideoMock({
      baseUrl: "https://fast.genvideo.test",
      timing: { generation: "5s", start: Date.UTC(2030, 0, 1) },
    });
    server.use(...fast.handlers);
    expect(fast.clock.now().toISOString()).toBe("2030-01-01T00:00:00.000Z");
    const id = await create(fast, { prompt: "quick" });
    await fast.clock.advance("5s");
    expect(await status(fast, id)).toMatchObject({
      status: "completed",
      created_at: "2030-01-01T00:00:00.000Z",
    });
  });
});

describe("prompt markers, as on the server", () => {
  it.each([
    ["[[fail:UNSAFE_CONTENT]]", "UNSAFE_CONTENT", 999],
    ["[[fail:GENERATION_FAILED]]", "GENERATION_FAILED", 1000],
  ])("%s fails with its code after the generation time", async (marker, code, creditsAfter) => {
    const id = await create(mock, { prompt: `a cat ${marker}` });
    await mock.clock.advance("1m");
    expect(await status(mock, id)).toMatchObject({ status: "failed", message: code, video_url: null });
    expect(await credits(mock)).toBe(creditsAfter);
  });

  it("[[delay:90s]] takes 90 s of service time", async () => {
    const id = await create(mock, { prompt: "slow [[delay:90s]]" });
    await mock.clock.advance("89s");
    expect((await status(mock, id)).status).toBe("processing");
    await mock.clock.advance("1s");
    expect((await status(mock, id)).status).toBe("completed");
  });

  it("an unsafe word fails the task when configured", async () => {
    const strict = createGenVideoMock({
      baseUrl: "https://strict.genvideo.test",
      unsafeWords: ["forbidden"],
    });
    server.use(...strict.handlers);
    const id = await create(strict, { prompt: "something FORBIDDEN here" });
    await strict.clock.advance("1m");
    expect(await status(strict, id)).toMatchObject({ status: "failed", message: "UNSAFE_CONTENT" });
  });
});

describe("tasks controls", () => {
  it("complete, fail and timeout end tasks now, with the service's refunds", async () => {
    const [a, b, c, d] = [
      await create(mock, { prompt: "a" }),
      await create(mock, { prompt: "b" }),
      await create(mock, { prompt: "c" }),
      await create(mock, { prompt: "d", model_type: "gen-3" }),
    ];
    expect(await credits(mock)).toBe(995);
    expect(await mock.tasks.complete(a!)).toMatchObject({ status: "completed", refunded: false });
    expect(await mock.tasks.fail(b!, "UNSAFE_CONTENT")).toMatchObject({
      failureCode: "UNSAFE_CONTENT",
      refunded: false,
    });
    expect(await mock.tasks.fail(c!)).toMatchObject({ failureCode: "GENERATION_FAILED", refunded: true });
    expect(await mock.tasks.timeout(d!)).toMatchObject({ failureCode: "TIMEOUT", refunded: true, cost: 2 });
    expect(await credits(mock)).toBe(998);
    expect(await status(mock, a!)).toMatchObject({ status: "completed", progress: 100 });
    expect(await status(mock, d!)).toMatchObject({ status: "failed", message: "TIMEOUT" });
    expect((await mock.tasks.list()).map((task) => task.status)).toEqual([
      "completed",
      "failed",
      "failed",
      "failed",
    ]);
  });

  it("ends tasks through the engine: times stay as they were, one webhook each, sent before the control resolves", async () => {
    const recording = createGenVideoMock({
      baseUrl: "https://forced.genvideo.test",
      webhookDelivery: "record",
    });
    server.use(...recording.handlers);
    const callback_url = "https://shop.example.com/hooks";
    const stuck = await create(recording, { prompt: "never ends [[timeout]]", callback_url });
    const unsafe = await create(recording, { prompt: "fine", callback_url });
    await recording.clock.advance("20s");
    const before = await recording.tasks.get(stuck);
    const timedOut = await recording.tasks.timeout(stuck);
    expect(timedOut).toMatchObject({ status: "failed", failureCode: "TIMEOUT", refunded: true });
    // The deadline and the finish time are the task's own, not rewritten to force the outcome.
    expect([timedOut.deadlineAt, timedOut.finishesAt]).toEqual([before!.deadlineAt, before!.finishesAt]);
    expect(await recording.tasks.complete(unsafe).then(() => "ended")).toBe("ended");
    await expect(recording.tasks.fail(unsafe, "UNSAFE_CONTENT")).rejects.toThrow(
      `Task ${unsafe} has already completed; only a queued or processing task can be ended`,
    );
    expect(
      recording.webhooks.deliveries.map((delivery) => [delivery.taskId, delivery.payload.message]),
    ).toEqual([
      [stuck, "TIMEOUT"],
      [unsafe, "Video generated successfully"],
    ]);
  });

  it("works on a task no request has looked at yet (still queued)", async () => {
    const id = await create(mock, { prompt: "queued" });
    expect((await mock.tasks.complete(id)).status).toBe("completed");
  });

  it("refuses to end a task twice or an unknown one", async () => {
    const id = await create(mock, { prompt: "once" });
    await mock.tasks.complete(id);
    await expect(mock.tasks.fail(id)).rejects.toThrow(/already completed/);
    await expect(mock.tasks.complete("00000000-0000-4000-8000-000000000000")).rejects.toThrow(/no task/);
  });

  it("next() decides how the next tasks end, in order, whatever the prompt", async () => {
    mock.tasks.next({ fail: "UNSAFE_CONTENT" });
    mock.tasks.next({ fail: "TIMEOUT" });
    mock.tasks.next({ delay: "5s" });
    const unsafe = await create(mock, { prompt: "harmless" });
    const timeout = await create(mock, { prompt: "harmless too" });
    const quick = await create(mock, { prompt: "quick" });
    const normal = await create(mock, { prompt: "normal" });
    await mock.clock.advance("5s");
    expect((await status(mock, quick)).status).toBe("completed");
    await mock.clock.advance("55s");
    expect(await status(mock, unsafe)).toMatchObject({ status: "failed", message: "UNSAFE_CONTENT" });
    expect((await status(mock, timeout)).status).toBe("processing");
    expect((await status(mock, normal)).status).toBe("completed");
    await mock.clock.advance("9m");
    expect(await status(mock, timeout)).toMatchObject({ status: "failed", message: "TIMEOUT" });
  });

  // Each code of the failure catalog, through both controls: the mock needs no change for a new one.
  it.each(FAILURE_CODES)("fail() and next() end a task with %s as the catalog says", async (code) => {
    const { refunded } = FAILURE_CATALOG[code];
    const now = await create(mock, { prompt: "now", model_type: "gen-3" });
    expect(await mock.tasks.fail(now, code)).toMatchObject({ failureCode: code, refunded });
    mock.tasks.next({ fail: code });
    const next = await create(mock, { prompt: "harmless", model_type: "gen-3" });
    await mock.clock.advance("10m");
    expect(await status(mock, next)).toMatchObject({ status: "failed", message: code });
    expect(await credits(mock)).toBe(refunded ? 1000 : 996);
  });

  it("refuses a failure code the catalog does not have", async () => {
    const id = await create(mock, { prompt: "a" });
    expect(() => mock.tasks.fail(id, "EXPLODED" as never)).toThrow("unknown failure code EXPLODED");
    expect(() => mock.tasks.next({ fail: "EXPLODED" as never })).toThrow("unknown failure code EXPLODED");
    expect(await status(mock, id)).toMatchObject({ status: "processing" });
  });

  it("get() reads one task with its request", async () => {
    const id = await create(mock, { prompt: "details", aspect_ratio: "9:16" });
    expect(await mock.tasks.get(id)).toMatchObject({
      id,
      status: "processing",
      request: { prompt: "details" },
      cost: 1,
    });
    expect(await mock.tasks.get("nope")).toBeUndefined();
  });
});

describe("forced HTTP errors", () => {
  it("answers 429 with Retry-After and the service's body for the next N matching requests", async () => {
    mock.errors.next({ status: 429, retryAfter: "3s", times: 2, route: "create" });
    const id = await create(mock, { prompt: "x" }).catch((error: Error) => error.message);
    expect(id).toMatch(/^create failed: 429/);
    const response = await api(mock, "/api/gen/generate", { json: { prompt: "x" } });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await response.json()).toEqual({
      success: false,
      error: "Too Many Requests",
      code: "RATE_LIMITED",
      message: "Rate limit of 120 creations per minute exceeded; retry in 3 s.",
    });
    expect(mock.errors.remaining).toBe(0);
    expect((await api(mock, "/api/gen/generate", { json: { prompt: "x" } })).status).toBe(200);
  });

  it("answers 500 with a request id, 503, or a network error", async () => {
    mock.errors.next({ status: 500 });
    mock.errors.next({ status: 503, retryAfter: 2 });
    mock.errors.next({ status: "network" });
    const failed = await api(mock, "/api/gen/account");
    const body = (await failed.json()) as Record<string, string>;
    expect(failed.status).toBe(500);
    expect(body).toMatchObject({ error: "Internal Server Error", code: "INTERNAL_ERROR" });
    expect(body.message).toContain(body.request_id);
    expect(failed.headers.get("x-request-id")).toBe(body.request_id);
    const unavailable = await api(mock, "/api/gen/account");
    expect([unavailable.status, unavailable.headers.get("retry-after")]).toEqual([503, "2"]);
    const unavailableBody = (await unavailable.json()) as Record<string, string>;
    expect(unavailableBody).toMatchObject({ error: "Service Unavailable", code: "SERVICE_UNAVAILABLE" });
    expect(unavailable.headers.get("x-request-id")).toBe(unavailableBody.request_id);
    await expect(api(mock, "/api/gen/account")).rejects.toThrow(TypeError);
    expect((await api(mock, "/api/gen/account")).status).toBe(200);
  });

  it("leaves requests of other routes alone", async () => {
    mock.errors.next({ status: 500, route: "status" });
    expect((await api(mock, "/api/gen/account")).status).toBe(200);
    const id = await create(mock, { prompt: "x" });
    expect((await api(mock, `/api/gen/status/${id}`)).status).toBe(500);
  });
});

describe("what the code under test sent", () => {
  it("records each request with headers, parsed body and the status answered", async () => {
    await create(mock, { prompt: "logged" });
    await api(mock, "/api/gen/status/not-a-uuid");
    expect(mock.requests.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: "POST", path: "/api/gen/generate", status: 200 },
      { method: "GET", path: "/api/gen/status/not-a-uuid", status: 400 },
    ]);
    expect(mock.requests[0]).toMatchObject({
      body: { prompt: "logged" },
      headers: { authorization: `Bearer ${mock.apiKey}`, "content-type": "application/json" },
    });
  });
});

describe("video URLs", () => {
  it("serves the fixture MP4 with ranges, and refuses a bad signature", async () => {
    const id = await create(mock, { prompt: "watch me" });
    await mock.tasks.complete(id);
    const { video_url } = (await status(mock, id)) as { video_url: string };
    expect(video_url).toMatch(
      new RegExp(`^https://api.genvideo.test/videos/${id}\\.mp4\\?expires=\\d+&signature=`),
    );
    const whole = await fetch(video_url);
    expect([whole.status, whole.headers.get("content-type")]).toEqual([200, "video/mp4"]);
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
    const part = await fetch(video_url, { headers: { range: "bytes=0-9" } });
    expect([part.status, part.headers.get("content-range")]).toEqual([206, `bytes 0-9/${bytes.length}`]);
    expect((await fetch(video_url.replace(/signature=./, "signature=x"))).status).toBe(403);
  });

  it("expires after 7 days of service time", async () => {
    const id = await create(mock, { prompt: "old" });
    await mock.tasks.complete(id);
    const { video_url } = (await status(mock, id)) as { video_url: string };
    await mock.clock.advance("169h");
    const expired = await fetch(video_url);
    expect([expired.status, ((await expired.json()) as { code: string }).code]).toEqual([403, "URL_EXPIRED"]);
  });
});

describe("msw integration", () => {
  it("lets server.use() override one endpoint, and reset() start afresh", async () => {
    server.use(
      http.get(`${mock.baseUrl}/api/gen/account`, () =>
        HttpResponse.json({ account_id: "acc_override", name: "override", credits: 0 }),
      ),
    );
    expect(await credits(mock)).toBe(0);
    await create(mock, { prompt: "still mocked" });
    server.resetHandlers();
    expect(await credits(mock)).toBe(999);
    await mock.reset();
    expect(await credits(mock)).toBe(1000);
    expect(await mock.tasks.list()).toEqual([]);
    expect(mock.requests).toHaveLength(1);
  });

  it("accepts the configured keys only, with the documented 401 bodies", async () => {
    const keyed = createGenVideoMock({
      baseUrl: "https://keys.genvideo.test",
      apiKeys: ["first_key_0123456789abc", "second_key_0123456789ab"],
    });
    server.use(...keyed.handlers);
    expect((await api(keyed, "/api/gen/account", { key: "second_key_0123456789ab" })).status).toBe(200);
    const refused = await api(keyed, "/api/gen/account", { key: "third_key_0123456789abc" });
    expect([refused.status, await refused.json()]).toEqual([
      401,
      { error: "Unauthorized", message: "Invalid API key" },
    ]);
  });

  it("derives the same default key and secret from the same seed", () => {
    const one = createGenVideoMock({ seed: 7 });
    const two = createGenVideoMock({ seed: 7 });
    expect([one.apiKey, one.webhookSecret]).toEqual([two.apiKey, two.webhookSecret]);
    expect(one.apiKey).not.toBe(createGenVideoMock({ seed: 8 }).apiKey);
    expect(one.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it("hands out the same task ids for the same seed, other ids for another seed, and starts over at reset()", async () => {
    async function taskIds(seeded: GenVideoMock, count = 2): Promise<string[]> {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) {
        const response = await seeded.fetch(
          new Request(`${seeded.baseUrl}/api/gen/generate`, {
            method: "POST",
            headers: { authorization: `Bearer ${seeded.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ prompt: `fox ${index}` }),
          }),
        );
        ids.push(((await response.json()) as { task_id: string }).task_id);
      }
      return ids;
    }
    const one = createGenVideoMock({ seed: "ids" });
    const first = await taskIds(one);
    expect(first).toEqual(await taskIds(createGenVideoMock({ seed: "ids" })));
    for (const id of first)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(first).size).toBe(2);
    expect(await taskIds(createGenVideoMock({ seed: "other ids" }))).not.toContain(first[0]);
    await one.reset();
    expect(await taskIds(one)).toEqual(first);
  });

  it("starts the account with the configured credits", async () => {
    const poor = createGenVideoMock({ baseUrl: "https://poor.genvideo.test", credits: 0 });
    server.use(...poor.handlers);
    const response = await api(poor, "/api/gen/generate", { json: { prompt: "x" } });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([
      402,
      "INSUFFICIENT_CREDITS",
    ]);
  });

  it("serves under a base path", async () => {
    const prefixed = createGenVideoMock({ baseUrl: "https://gw.test/genvideo/v1/" });
    server.use(...prefixed.handlers);
    expect(prefixed.baseUrl).toBe("https://gw.test/genvideo/v1");
    const id = await create(prefixed, { prompt: "prefixed" });
    await prefixed.tasks.complete(id);
    const { video_url } = (await status(prefixed, id)) as { video_url: string };
    expect(video_url.startsWith("https://gw.test/genvideo/v1/videos/")).toBe(true);
    expect((await fetch(video_url)).status).toBe(200);
  });
});

describe("options", () => {
  it("refuses unusable keys and secrets at once", () => {
    expect(() => createGenVideoMock({ apiKeys: ["short"] })).toThrow(/20 to 255 characters/);
    expect(() => createGenVideoMock({ apiKeys: [] })).toThrow(/at least one key/);
    expect(() => createGenVideoMock({ webhookSecret: "secret" })).toThrow(/whsec_/);
    expect(() => createGenVideoMock({ timing: { generation: "soon" } })).toThrow(RangeError);
  });
});

describe("under vitest's fake timers", () => {
  it("never waits on a timer: creates, advances and completes with the timers frozen", async () => {
    vi.useFakeTimers();
    try {
      const id = await create(mock, { prompt: "frozen timers" });
      await mock.clock.advance("1m");
      expect(await status(mock, id)).toMatchObject({ status: "completed" });
      const other = await create(mock, { prompt: "another" });
      expect((await mock.tasks.timeout(other)).failureCode).toBe("TIMEOUT");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("X-Content-Type-Options", () => {
  it("is nosniff on every answer: API, errors, forced errors and videos", async () => {
    const id = await create(mock, { prompt: "sniff me not" });
    await mock.tasks.complete(id);
    const { video_url } = (await status(mock, id)) as { video_url: string };
    mock.errors.next({ status: 503, retryAfter: 1 });
    const answers: [string, () => Promise<Response>][] = [
      ["a forced 503", () => api(mock, "/api/gen/account")],
      ["a create", () => api(mock, "/api/gen/generate", { json: { prompt: "x" } })],
      ["a refused create", () => api(mock, "/api/gen/generate", { json: { colour: "red" } })],
      ["a status", () => api(mock, `/api/gen/status/${id}`)],
      ["a 401", () => api(mock, "/api/gen/account", { key: null })],
      ["a 404", () => api(mock, "/nowhere")],
      ["a 405", () => api(mock, "/api/gen/account", { method: "DELETE" })],
      ["a video", () => fetch(video_url)],
      ["a range", () => fetch(video_url, { headers: { range: "bytes=0-9" } })],
      ["an unsatisfiable range", () => fetch(video_url, { headers: { range: "bytes=99999999-" } })],
      ["a refused video", () => fetch(video_url.replace(/signature=./, "signature=x"))],
    ];
    const missing: string[] = [];
    for (const [name, send] of answers) {
      const response = await send();
      await response.arrayBuffer();
      if (response.headers.get("x-content-type-options") !== "nosniff")
        missing.push(`${name} (${response.status})`);
    }
    expect(missing).toEqual([]);
  });
});
