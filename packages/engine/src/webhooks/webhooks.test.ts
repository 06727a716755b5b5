import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";

const CALLBACK = "https://example.com/hooks/genvideo";

describe("webhook notifications", () => {
  it("sends a completed event signed per Standard Webhooks", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    expect(h.sender.deliveries).toHaveLength(1);
    const delivery = h.sender.deliveries[0]!;
    expect(delivery.url).toBe(CALLBACK);
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(delivery.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(delivery.headers["webhook-timestamp"]).toBe(String(Math.floor(h.wallClock.now() / 1000)));
    const payload = new Webhook(h.webhookSecret).verify(delivery.body, delivery.headers);
    const status = await h.status(taskId);
    expect(payload).toEqual({
      success: true,
      message: "Video generated successfully",
      task_id: taskId,
      video_url: status.video_url,
    });
    expect(Object.keys(JSON.parse(delivery.body))).toEqual(["success", "message", "task_id", "video_url"]);
  });

  it.each([
    ["[[fail:UNSAFE_CONTENT]]", "UNSAFE_CONTENT", 60_000],
    ["[[fail:GENERATION_FAILED]]", "GENERATION_FAILED", 60_000],
    ["[[timeout]]", "TIMEOUT", 10 * 60_000],
  ])("sends a failed event for %s", async (marker, code, after) => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: `A fox ${marker}`, callback_url: CALLBACK });
    await h.advance(after);
    const delivery = h.sender.deliveries[0]!;
    expect(new Webhook(h.webhookSecret).verify(delivery.body, delivery.headers)).toEqual({
      success: false,
      message: code,
      task_id: taskId,
      video_url: null,
    });
  });

  it("sends nothing for a task without callback_url", async () => {
    const h = await createHarness();
    await h.create({ prompt: "A fox" });
    await h.advance(60_000);
    expect(h.sender.deliveries).toHaveLength(0);
  });

  it("retries 30 s apart with the same webhook-id, and marks the event failed after the 5th failure", async () => {
    const h = await createHarness();
    h.sender.defaultStatus = 503;
    const taskId = await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    expect(h.sender.deliveries).toHaveLength(1);
    await h.advance(29_999);
    expect(h.sender.deliveries).toHaveLength(1);
    for (let attempt = 2; attempt <= 5; attempt++) {
      await h.advance(attempt === 2 ? 1 : 30_000);
      expect(h.sender.deliveries).toHaveLength(attempt);
    }
    await h.advance(10 * 60_000);
    expect(h.sender.deliveries).toHaveLength(5);
    expect(new Set(h.sender.deliveries.map((delivery) => delivery.headers["webhook-id"])).size).toBe(1);
    for (const delivery of h.sender.deliveries)
      new Webhook(h.webhookSecret).verify(delivery.body, delivery.headers);

    const response = await h.call("GET", `/api/gen/tasks/${taskId}/webhooks`);
    expect(response.status).toBe(200);
    const listing = (await response.json()) as { task_id: string; events: Record<string, unknown>[] };
    expect(listing.task_id).toBe(taskId);
    expect(listing.events).toHaveLength(1);
    expect(listing.events[0]).toMatchObject({ state: "failed", attempt_count: 5, next_attempt_at: null });
    const attempts = listing.events[0]!.attempts as Record<string, unknown>[];
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(attempts[0]).toEqual({
      attempt: 1,
      started_at: "2026-01-01T00:01:00.000Z",
      duration_ms: 5,
      status_code: 503,
      error: "HTTP 503",
    });
    expect(attempts[1]?.started_at).toBe("2026-01-01T00:01:30.000Z");
  });

  it("stops retrying at the first 2xx", async () => {
    const h = await createHarness();
    h.sender.statuses = [500, 204];
    const taskId = await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    await h.advance(30_000);
    await h.advance(120_000);
    expect(h.sender.deliveries).toHaveLength(2);
    const [event] = await h.engine.admin.listWebhookEvents(taskId);
    expect(event).toMatchObject({ state: "delivered", attemptCount: 2 });
  });

  it("redelivers on request (202) with the same webhook-id, continuing the attempt count", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    const response = await h.call("POST", `/api/gen/tasks/${taskId}/webhooks/redeliver`);
    expect(response.status).toBe(202);
    const body = (await response.json()) as { event_id: string };
    expect(body).toEqual({
      success: true,
      message: "Webhook redelivery queued",
      event_id: expect.any(String),
    });
    await h.advance(0);
    expect(h.sender.deliveries).toHaveLength(2);
    expect(h.sender.deliveries[1]?.headers["webhook-id"]).toBe(body.event_id);
    expect(h.sender.deliveries[1]?.body).toBe(h.sender.deliveries[0]?.body);
    const [event] = await h.engine.admin.listWebhookEvents(taskId);
    expect(event?.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
  });

  it("answers 404 to a redelivery with nothing to send and to another account's task", async () => {
    const h = await createHarness();
    const plain = await h.create({ prompt: "A fox" });
    await h.advance(60_000);
    const nothing = await h.call("POST", `/api/gen/tasks/${plain}/webhooks/redeliver`);
    expect(nothing.status).toBe(404);
    expect(await nothing.json()).toMatchObject({ code: "NOT_FOUND" });
    const { account } = await h.engine.admin.createAccount("other", 10);
    const { key } = await h.engine.admin.createApiKey(account.id);
    const withHook = await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    expect((await h.call("POST", `/api/gen/tasks/${withHook}/webhooks/redeliver`, { key })).status).toBe(404);
    expect((await h.call("GET", `/api/gen/tasks/${withHook}/webhooks`, { key })).status).toBe(404);
  });

  it("signs with both secrets during a rotation's overlap, then only with the new one", async () => {
    const h = await createHarness();
    const newSecret = await h.engine.admin.rotateWebhookSecret(h.accountId, 5 * 60_000);
    await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    const during = h.sender.deliveries[0]!;
    expect(during.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    new Webhook(h.webhookSecret).verify(during.body, during.headers);
    new Webhook(newSecret).verify(during.body, during.headers);

    await h.advance(5 * 60_000);
    await h.create({ prompt: "A fox", callback_url: CALLBACK });
    await h.advance(60_000);
    const after = h.sender.deliveries[1]!;
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    new Webhook(newSecret).verify(after.body, after.headers);
    expect(() => new Webhook(h.webhookSecret).verify(after.body, after.headers)).toThrow();
  });

  it("delivers to many receivers at once: a slow one blocks nobody", async () => {
    const h = await createHarness({ webhooks: { concurrency: 2 } });
    const slow: ((value: { ok: true; statusCode: number; durationMs: number }) => void)[] = [];
    const fast: string[] = [];
    h.sender.send = async (delivery) => {
      if (delivery.url.includes("slow")) return new Promise((resolve) => slow.push(resolve));
      fast.push(delivery.url);
      return { ok: true, statusCode: 200, durationMs: 1 };
    };
    await h.create({ prompt: "one", callback_url: "https://slow.example.com/hook" });
    await h.create({ prompt: "two", callback_url: "https://fast.example.com/a" });
    await h.create({ prompt: "three", callback_url: "https://fast.example.com/b" });
    h.clock.advance(60_000);
    // Not runUntilIdle: it would wait for the slow receiver.
    for (let round = 0; round < 6; round++) {
      await h.engine.tick();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(fast).toEqual(["https://fast.example.com/a", "https://fast.example.com/b"]);
    expect(slow).toHaveLength(1);
    for (const resolve of slow) resolve({ ok: true, statusCode: 200, durationMs: 30_000 });
    await h.engine.idle();
  });
});
