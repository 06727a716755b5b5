import { describe, expect, it } from "vitest";
import { createHarness, FakeRenderer, FakeSender, fakeVideoStorage } from "../test/support/harness.js";
import { createEngine } from "./engine.js";
import type { EngineObserver, HttpRequestEvent, TaskEndedEvent, WebhookAttemptEvent } from "./observer.js";

/** An observer that writes down everything it hears. */
function recordingObserver(traceParent: string | null = null) {
  const heard = {
    created: [] as string[],
    claimedWaits: [] as number[],
    ended: [] as TaskEndedEvent[],
    takenOver: [] as number[],
    attempts: [] as WebhookAttemptEvent[],
    requests: [] as HttpRequestEvent[],
  };
  const observer: EngineObserver = {
    taskCreated: ({ modelType }) => heard.created.push(modelType),
    taskClaimed: ({ queueWaitMs }) => heard.claimedWaits.push(queueWaitMs),
    taskEnded: (event) => heard.ended.push(event),
    leasesTakenOver: (count) => heard.takenOver.push(count),
    webhookAttempt: (event) => heard.attempts.push(event),
    httpRequest: (event) => heard.requests.push(event),
    traceParent: () => traceParent,
  };
  return { heard, observer };
}

const HOOK = "https://example.com/hook";

describe("the engine's observer port", () => {
  it("hears every task end once, with its outcome, refund and service-time durations", async () => {
    const { heard, observer } = recordingObserver();
    const h = await createHarness({ generationMs: 1_000, taskDeadlineMs: 10_000 }, { observer });
    await h.create({ prompt: "a calm sea" });
    await h.create({ prompt: "a storm [[fail:UNSAFE_CONTENT]]", model_type: "gen-3" });
    await h.create({ prompt: "a wreck [[fail:GENERATION_FAILED]]" });
    await h.create({ prompt: "a ghost ship [[timeout]]" });
    expect(heard.created).toEqual(["gen-3-fast", "gen-3", "gen-3-fast", "gen-3-fast"]);

    await h.advance(250);
    // Claimed in the tick at +250 ms: each waited that long in the queue.
    expect(heard.claimedWaits).toEqual([250, 250, 250, 250]);
    await h.advance(1_000);
    await h.advance(8_750);

    const byOutcome = Object.fromEntries(heard.ended.map((event) => [event.outcome, event]));
    expect(heard.ended).toHaveLength(4);
    expect(byOutcome.completed).toMatchObject({ modelType: "gen-3-fast", refunded: false });
    expect(byOutcome.UNSAFE_CONTENT).toMatchObject({ modelType: "gen-3", refunded: false });
    expect(byOutcome.GENERATION_FAILED).toMatchObject({ refunded: true });
    expect(byOutcome.TIMEOUT).toMatchObject({ refunded: true, endToEndMs: 10_000 });
    expect(byOutcome.completed!.endToEndMs).toBe(1_250);
    expect(byOutcome.completed!.generationMs).toBe(1_000);
  });

  it("hears each webhook attempt with a bounded kind, and the delivery failing after the last", async () => {
    const { heard, observer } = recordingObserver();
    const h = await createHarness(
      { generationMs: 0, webhooks: { maxAttempts: 3, retryDelayMs: 1_000 } },
      { observer },
    );
    h.sender.statuses.push(500, 503, 502);
    await h.create({ prompt: "a fox", callback_url: HOOK });
    await h.advance(0);
    await h.advance(1_000);
    await h.advance(1_000);
    expect(heard.attempts.map(({ kind, state }) => [kind, state])).toEqual([
      ["non_2xx", "pending"],
      ["non_2xx", "pending"],
      ["non_2xx", "failed"],
    ]);

    h.sender.statuses.push(204);
    await h.create({ prompt: "a hare", callback_url: HOOK });
    await h.advance(0);
    expect(heard.attempts.at(-1)).toMatchObject({ kind: "2xx", state: "delivered" });
  });

  it("names the route template of each request, never the task id in its path", async () => {
    const { heard, observer } = recordingObserver();
    const h = await createHarness({}, { observer });
    const taskId = await h.create({ prompt: "a fox" });
    await h.status(taskId);
    await h.call("GET", `/api/gen/status/${taskId}`, { key: null });
    await h.call("GET", `/api/gen/nothing/${taskId}`);
    await h.call("DELETE", "/api/gen/generate");
    expect(heard.requests.map(({ method, route, status }) => `${method} ${route} ${status}`)).toEqual([
      "POST /api/gen/generate 200",
      "GET /api/gen/status/:task_id 200",
      "GET /api/gen/status/:task_id 401",
      "GET unmatched 404",
      "DELETE unmatched 405",
    ]);
    for (const request of heard.requests) expect(request.route).not.toContain(taskId);
  });

  it("keeps the creating request's trace context with the task, for its render and its webhook", async () => {
    const traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const { observer } = recordingObserver(traceParent);
    const h = await createHarness({ generationMs: 0 }, { observer });
    const taskId = await h.create({ prompt: "a fox", callback_url: HOOK });
    await h.advance(0);
    expect((await h.store.transaction((tx) => tx.getTask(taskId)))?.traceParent).toBe(traceParent);
    expect(h.renderer.jobs[0]?.traceParent).toBe(traceParent);
    expect(h.sender.deliveries[0]?.traceParent).toBe(traceParent);
  });

  it("hears a lease taken over from a worker that stopped renewing it", async () => {
    const h = await createHarness({ generationMs: 60_000, leaseMs: 10_000 });
    h.renderer.mode = "hang";
    await h.create({ prompt: "a fox" });
    await h.engine.tick();
    expect(h.engine.activity().leasesHeld).toBe(1);
    // The first engine freezes (it never ticks again); another on the same store sees its lease run out.
    const { heard, observer } = recordingObserver();
    const other = createEngine({
      store: h.store,
      clock: h.clock,
      renderer: new FakeRenderer(),
      videoStorage: fakeVideoStorage,
      sender: new FakeSender(),
      config: { generationMs: 60_000, leaseMs: 10_000 },
      observer,
    });
    h.clock.advance(10_001);
    await other.tick();
    expect(heard.takenOver).toEqual([1]);
    expect(heard.claimedWaits).toEqual([10_001]);
  });

  it("reports what is in flight without touching the store", async () => {
    const h = await createHarness({ generationMs: 60_000, workerConcurrency: 3 });
    h.renderer.mode = "hang";
    await h.create({ prompt: "a fox" });
    await h.create({ prompt: "a hare" });
    await h.engine.tick();
    expect(h.engine.activity()).toEqual({ renders: 2, leasesHeld: 2, webhookAttempts: 0 });
  });
});
