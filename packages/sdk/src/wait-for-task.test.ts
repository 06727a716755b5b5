import { afterEach, describe, expect, it, vi } from "vitest";
import {
  completed,
  created,
  errorBody,
  json,
  type Reply,
  scriptedFetch,
  taskId,
} from "../test/support/fetch.js";
import { GenVideo, NotFoundError, RateLimitError, TaskFailedError, WaitTimeoutError } from "./index.js";

const status = (name: string, extra: object = {}) =>
  json({ status: name, task_id: taskId, message: name, ...extra });

function clientWith(...replies: Reply[]) {
  const double = scriptedFetch(...replies);
  const client = new GenVideo({
    apiKey: "gen_sk_x",
    baseUrl: "http://x.test",
    fetch: double.fetch,
    maxRetries: 0,
  });
  return { client, sent: double.sent };
}

/** Gaps between consecutive requests, in milliseconds. */
const gaps = (sent: { at: number }[]) => sent.slice(1).map((request, index) => request.at - sent[index]!.at);

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("pollUntilDone", () => {
  it("waits through queued and processing, and reports each change once", async () => {
    const { client } = clientWith(
      status("queued"),
      status("queued"),
      status("processing", { progress: 10 }),
      status("processing", { progress: 10 }),
      status("processing", { progress: 60 }),
      json(completed),
    );
    const seen: unknown[] = [];
    const result = await client.pollUntilDone(taskId, {
      interval: 1,
      onProgress: (update) => seen.push([update.status, update.progress]),
    });
    expect(result).toEqual(completed);
    expect(seen).toEqual([
      ["queued", undefined],
      ["processing", 10],
      ["processing", 60],
      ["completed", undefined],
    ]);
  });

  it("accepts the create response as well as the id", async () => {
    const { client, sent } = clientWith(json(completed));
    await expect(client.pollUntilDone(created)).resolves.toEqual(completed);
    expect(sent[0]!.url).toContain(taskId);
  });

  it("treats a status it does not know as not finished", async () => {
    const { client, sent } = clientWith(status("warming_up"), status("uploading"), json(completed));
    await expect(client.pollUntilDone(taskId, { interval: 1 })).resolves.toEqual(completed);
    expect(sent).toHaveLength(3);
  });

  it.each(["UNSAFE_CONTENT", "GENERATION_FAILED", "TIMEOUT"])(
    "rejects with TaskFailedError carrying %s",
    async (code) => {
      const failed = { status: "failed", task_id: taskId, message: code, video_url: null };
      const { client } = clientWith(status("processing"), json(failed, 200, { "x-request-id": "req_7" }));
      const error = await client.pollUntilDone(taskId, { interval: 1 }).catch((caught: unknown) => caught);
      expect(TaskFailedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ taskId, code, task: failed, requestId: "req_7" });
    },
  );

  it("gives up after its timeout with the last status, so the caller can resume", async () => {
    const { client } = clientWith(status("processing", { progress: 30 }));
    // The task never ends: only the timeout can end this call.
    const error = await client
      .pollUntilDone(taskId, { timeout: 120, interval: 20 })
      .catch((caught: unknown) => caught);
    expect(WaitTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ taskId, timeout: 120, lastStatus: { status: "processing", progress: 30 } });
  });

  it("rejects with the caller's reason when aborted during a pause", async () => {
    const { client, sent } = clientWith(status("processing"));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    // The pause is an hour: only the abort can end this call within the test's timeout.
    await expect(
      client.pollUntilDone(taskId, {
        interval: 3_600_000,
        maxInterval: 3_600_000,
        signal: controller.signal,
      }),
    ).rejects.toThrow("shutting down");
    expect(sent).toHaveLength(1);
  });

  it("does not start when the signal is already aborted", async () => {
    const { client, sent } = clientWith(json(completed));
    await expect(client.pollUntilDone(taskId, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(sent).toHaveLength(0);
  });

  it("grows its pauses from interval to maxInterval, with jitter below each step", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(1);
    const { client, sent } = clientWith(status("processing"));
    const pending = client.pollUntilDone(taskId, { interval: 1000, maxInterval: 3000, timeout: 20_000 });
    const failure = pending.catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(WaitTimeoutError.isInstance(await failure)).toBe(true);
    const steps = gaps(sent);
    expect(steps.slice(0, 5)).toEqual([1000, 1500, 2250, 3000, 3000]);
  });

  it("pauses at least as long as a Retry-After on a status, and through a 429", async () => {
    vi.useFakeTimers();
    const { client, sent } = clientWith(
      status("processing", {}),
      errorBody(429, "RATE_LIMITED", "slow", { "retry-after": "5" }),
      json(completed),
    );
    const pending = client.pollUntilDone(taskId, { interval: 100 });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toEqual(completed);
    expect(gaps(sent)[1]).toBeGreaterThanOrEqual(5000);
  });

  it("honours Retry-After sent with a status", async () => {
    vi.useFakeTimers();
    const processing = json({ status: "processing", task_id: taskId, message: "x" }, 200, {
      "retry-after": "4",
    });
    const { client, sent } = clientWith(processing, json(completed));
    const pending = client.pollUntilDone(taskId, { interval: 100 });
    await vi.advanceTimersByTimeAsync(5000);
    await expect(pending).resolves.toEqual(completed);
    expect(gaps(sent)[0]).toBeGreaterThanOrEqual(4000);
  });

  it("ends on an error that waiting cannot fix", async () => {
    const { client, sent } = clientWith(status("processing"), errorBody(404, "NOT_FOUND"));
    await expect(client.pollUntilDone(taskId, { interval: 1 })).rejects.toSatisfy(NotFoundError.isInstance);
    expect(sent).toHaveLength(2);
  });

  it("gives up at its deadline even while rate limited", async () => {
    const { client } = clientWith(errorBody(429, "RATE_LIMITED", "slow", { "retry-after": "1" }));
    const error = await client.pollUntilDone(taskId, { timeout: 100 }).catch((caught: unknown) => caught);
    expect(WaitTimeoutError.isInstance(error)).toBe(true);
    expect(RateLimitError.isInstance(error)).toBe(false);
  });
});
