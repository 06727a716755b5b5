/// <reference types="node" />
/**
 * The SDK against the mock, the way a consumer's suite uses it: a task whose
 * service time is 10 minutes, polled to completion and its webhook verified,
 * without waiting ten minutes of real time; then the same under vitest's fake
 * timers. Nothing here asserts a real duration: the test timeout is the bound.
 */
import { GenVideo, RateLimitError, TaskFailedError, verifyWebhook } from "@genvideo/sdk";
import { listenOnLoopback } from "@genvideo/server/testing";
import { HttpResponse, http, passthrough } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createGenVideoMock } from "../src/index.js";

const CALLBACK = "https://shop.example.test/hooks/genvideo";
const received: { taskId: string; success: boolean; message: string }[] = [];
let receiverStatus = 200;

// The consumer's own receiver: verifies the signature exactly as production code would.
const receiver = (secret: string) =>
  http.post(CALLBACK, async ({ request }) => {
    const payload = await verifyWebhook(request, secret);
    received.push({ taskId: payload.task_id, success: payload.success, message: payload.message });
    return new HttpResponse(null, { status: receiverStatus });
  });

const mock = createGenVideoMock({ seed: "sdk" });
const server = setupServer(...mock.handlers, receiver(mock.webhookSecret));
const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey, maxRetries: 2 });

/** Requests msw has started handling and not finished: the mock's answers and its webhooks. */
let inFlight = 0;
server.events.on("request:start", () => {
  inFlight++;
});
server.events.on("request:end", () => {
  inFlight--;
});

beforeAll(() => {
  server.listen({ onUnhandledFrame: "error" });
});
afterEach(async () => {
  vi.useRealTimers();
  server.resetHandlers();
  received.length = 0;
  receiverStatus = 200;
  await mock.reset();
});
afterAll(() => server.close());

describe("pollUntilDone and verifyWebhook", () => {
  it("finish a 10-minute task without waiting for it (clock.advance)", async () => {
    mock.tasks.next({ delay: "10m" });
    const task = await client.createTask({ prompt: "a long take of the sea", callback_url: CALLBACK });
    const seen: string[] = [];
    const done = client.pollUntilDone(task, {
      interval: 5,
      onProgress: (status) => seen.push(status.status),
    });
    await vi.waitFor(() => expect(seen).toEqual(["processing"]));
    await mock.clock.advance("5m");
    await mock.clock.advance("5m");
    const result = await done;
    expect(result).toMatchObject({ status: "completed", task_id: task.task_id });
    expect(seen.at(-1)).toBe("completed");
    expect(received).toEqual([
      { taskId: task.task_id, success: true, message: "Video generated successfully" },
    ]);
    const [delivery] = mock.webhooks.forTask(task.task_id);
    expect(delivery).toMatchObject({ attempt: 1, statusCode: 200, url: CALLBACK });
    await expect(verifyWebhook(delivery!.toRequest(), mock.webhooks.secret)).resolves.toMatchObject({
      video_url: result.video_url,
    });
  });

  it("finish a 10-minute task in a 2000th of the time with service time flowing (timing.scale)", async () => {
    const fast = createGenVideoMock({
      baseUrl: "https://fast.genvideo.test",
      seed: "sdk",
      timing: { scale: 2000 },
    });
    server.use(...fast.handlers);
    const fastClient = new GenVideo({ baseUrl: fast.baseUrl, apiKey: fast.apiKey });
    const video = await fastClient.generate(
      { prompt: "ten minutes of rain [[delay:10m]]", callback_url: CALLBACK },
      { interval: 20, maxInterval: 20 },
    );
    await fast.webhooks.settled();
    expect(video.status).toBe("completed");
    expect(received).toEqual([
      { taskId: video.task_id, success: true, message: "Video generated successfully" },
    ]);
  });

  it("work under vitest's fake timers, with the SDK's default poll intervals", async () => {
    const realSetTimeout = globalThis.setTimeout;
    vi.useFakeTimers();
    const timed = createGenVideoMock({
      baseUrl: "https://timed.genvideo.test",
      seed: "sdk",
      timing: { scale: 1 },
    });
    server.use(...timed.handlers);
    const timedClient = new GenVideo({ baseUrl: timed.baseUrl, apiKey: timed.apiKey });
    const createdAt = Date.now();
    const task = await timedClient.createTask({ prompt: "fake time [[delay:10m]]", callback_url: CALLBACK });
    let finished = false;
    const done = timedClient.pollUntilDone(task).finally(() => {
      finished = true;
    });
    // Fake time moves in steps of 6 s (the SDK pauses 2 to 10 s), and only once every request a step
    // started is answered: requests need the real event loop (Web Crypto in the engine), and time
    // moving on while one waits for a busy machine would fire the client's request timeout (one jump
    // of ten minutes would too). A hundred steps: the real time they take is the test timeout's concern.
    for (let step = 0; step < 150 && !finished; step++) {
      await vi.advanceTimersByTimeAsync(6_000);
      do await new Promise((resolve) => realSetTimeout(resolve, 0));
      while (inFlight > 0);
    }
    await expect(done).resolves.toMatchObject({ status: "completed" });
    expect(Date.now() - createdAt).toBeGreaterThanOrEqual(10 * 60_000);
    await timed.webhooks.settled();
    expect(received.map((hook) => hook.taskId)).toEqual([task.task_id]);
  }, 60_000);

  it("reject with TaskFailedError when the mock fails the task", async () => {
    const task = await client.createTask({ prompt: "doomed", callback_url: CALLBACK });
    const failure = client.pollUntilDone(task, { interval: 5 }).catch((caught: unknown) => caught);
    await mock.tasks.fail(task.task_id, "UNSAFE_CONTENT");
    const error = await failure;
    expect(TaskFailedError.isInstance(error)).toBe(true);
    expect(received).toEqual([{ taskId: task.task_id, success: false, message: "UNSAFE_CONTENT" }]);
  });
});

describe("webhook delivery", () => {
  it("retries a failing receiver 30 s apart, with the same webhook-id, up to 5 attempts", async () => {
    receiverStatus = 500;
    const task = await client.createTask({ prompt: "retry me", callback_url: CALLBACK });
    await mock.tasks.complete(task.task_id);
    for (let attempt = 2; attempt <= 6; attempt++) await mock.clock.advance("30s");
    const attempts = mock.webhooks.forTask(task.task_id);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.statusCode, attempt.error])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, 500, "HTTP 500"]),
    );
    expect(new Set(attempts.map((attempt) => attempt.id)).size).toBe(1);
    const listed = await fetch(`${mock.baseUrl}/api/gen/tasks/${task.task_id}/webhooks`, {
      headers: { authorization: `Bearer ${mock.apiKey}` },
    });
    expect(JSON.stringify(await listed.json())).toContain('"failed"');
  });

  it("lets the receiver call the API while its webhook is being delivered", async () => {
    server.use(
      http.post(CALLBACK, async ({ request }) => {
        const payload = await verifyWebhook(request, mock.webhookSecret);
        const status = await client.getStatus(payload.task_id);
        received.push({ taskId: status.task_id, success: true, message: status.status });
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const task = await client.createTask({ prompt: "reentrant", callback_url: CALLBACK });
    await mock.tasks.complete(task.task_id);
    expect(received).toEqual([{ taskId: task.task_id, success: true, message: "completed" }]);
  });

  it("reaches a real local server through msw's passthrough", async () => {
    const { createServer } = await import("node:http");
    const bodies: Promise<unknown>[] = [];
    const receiverServer = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        bodies.push(
          verifyWebhook(Buffer.concat(chunks).toString("utf8"), request.headers, local.webhookSecret),
        );
        response.writeHead(204).end();
      });
    });
    const callback = `http://127.0.0.1:${await listenOnLoopback(receiverServer)}/hooks`;
    const local = createGenVideoMock({
      baseUrl: "https://local.genvideo.test",
      allowInsecureCallbacks: true,
    });
    server.use(
      ...local.handlers,
      http.post(callback, () => passthrough()),
    );
    try {
      const localClient = new GenVideo({ baseUrl: local.baseUrl, apiKey: local.apiKey });
      const task = await localClient.createTask({ prompt: "to a real server", callback_url: callback });
      await local.tasks.complete(task.task_id);
      expect(local.webhooks.forTask(task.task_id)).toMatchObject([{ statusCode: 204 }]);
      await expect(Promise.all(bodies)).resolves.toMatchObject([{ task_id: task.task_id, success: true }]);
    } finally {
      await new Promise((resolve) => receiverServer.close(resolve));
    }
  });

  it("only records in record mode", async () => {
    const recording = createGenVideoMock({ baseUrl: "https://rec.genvideo.test", webhookDelivery: "record" });
    server.use(...recording.handlers);
    const recordingClient = new GenVideo({ baseUrl: recording.baseUrl, apiKey: recording.apiKey });
    const task = await recordingClient.createTask({
      prompt: "quiet",
      callback_url: "https://nowhere.test/hook",
    });
    await recording.tasks.timeout(task.task_id);
    expect(received).toEqual([]);
    const [delivery] = recording.webhooks.deliveries;
    expect(delivery).toMatchObject({
      statusCode: 200,
      payload: { success: false, message: "TIMEOUT", video_url: null },
    });
    expect(Object.keys(delivery!.headers).sort()).toEqual([
      "content-type",
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
    ]);
  });
});

describe("the SDK's retry paths", () => {
  it("retries a forced 500 and 503 and then creates exactly one task", async () => {
    mock.errors.next({ status: 500, route: "create" });
    mock.errors.next({ status: 503, retryAfter: 0, route: "create" });
    const task = await client.createTask({ prompt: "eventually" });
    expect(mock.requests.map((request) => request.status)).toEqual([500, 503, 200]);
    expect(new Set(mock.requests.map((request) => request.headers["idempotency-key"])).size).toBe(1);
    expect((await mock.tasks.list()).map((listed) => listed.id)).toEqual([task.task_id]);
  });

  it("surfaces a 429 that outlasts the retries as RateLimitError with retryAfter", async () => {
    vi.useFakeTimers();
    mock.errors.next({ status: 429, retryAfter: "2s", times: 3, route: "status" });
    const task = await client.createTask({ prompt: "limited" });
    const read = client.getStatus(task.task_id).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(10_000);
    const error = await read;
    expect(RateLimitError.isInstance(error) && error.retryAfter).toBe(2000);
  });
});
