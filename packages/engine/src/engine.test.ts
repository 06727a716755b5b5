import { describe, expect, it } from "vitest";
import { createHarness } from "../test/support/harness.js";

describe("task lifecycle", () => {
  it("goes queued → processing → completed as service time passes", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A red fox in the snow" });
    expect(await h.status(taskId)).toMatchObject({ status: "queued", task_id: taskId, progress: 0 });
    expect(await h.status(taskId)).not.toHaveProperty("video_url");
    await h.advance(0);
    const processing = await h.status(taskId);
    expect(processing).toMatchObject({ status: "processing" });
    expect(processing).not.toHaveProperty("video_url");
    await h.advance(30_000);
    expect(await h.status(taskId)).toMatchObject({ status: "processing", progress: 50 });
    await h.advance(30_000);
    expect(await h.status(taskId)).toEqual({
      status: "completed",
      task_id: taskId,
      message: "Video generated successfully",
      video_url: expect.stringContaining(`/videos/${taskId}.mp4?expires=`),
      progress: 100,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:01:00.000Z",
    });
  });
});

describe("several engines on one store", () => {
  it("render each task once, end each once and notify once", async () => {
    const h = await createHarness({ workerConcurrency: 3 });
    const { createEngine } = await import("./engine.js");
    const { FakeRenderer, FakeSender, fakeVideoStorage } = await import("../test/support/harness.js");
    const otherRenderer = new FakeRenderer();
    const otherSender = new FakeSender();
    const other = createEngine({
      store: h.store,
      clock: h.clock,
      wallClock: h.wallClock,
      renderer: otherRenderer,
      videoStorage: fakeVideoStorage,
      sender: otherSender,
      config: { workerConcurrency: 3 },
    });
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) {
      ids.push(await h.create({ prompt: `fox ${index}`, callback_url: "https://example.com/hook" }));
    }
    for (let round = 0; round < 3; round++) {
      h.clock.advance(30_000);
      await Promise.all([h.engine.runUntilIdle(), other.runUntilIdle()]);
    }
    const rendered = [...h.renderer.jobs, ...otherRenderer.jobs].map((job) => job.taskId).sort();
    expect(rendered).toEqual([...ids].sort());
    expect(h.renderer.jobs.length).toBeGreaterThan(0);
    expect(otherRenderer.jobs.length).toBeGreaterThan(0);
    for (const id of ids) expect(await h.status(id)).toMatchObject({ status: "completed" });
    const notified = [...h.sender.deliveries, ...otherSender.deliveries].map(
      (delivery) => (JSON.parse(delivery.body) as { task_id: string }).task_id,
    );
    expect(notified.sort()).toEqual([...ids].sort());
  });
});

describe("an injected id source", () => {
  function countingUUIDs() {
    let count = 0;
    return () => `00000000-0000-4000-8000-${(++count).toString(16).padStart(12, "0")}`;
  }

  it("names tasks, webhook events and requests", async () => {
    // Ids are drawn inside transactions: a rehearsing store would draw each twice.
    const h = await createHarness({}, { randomUUID: countingUUIDs(), rehearse: false });
    const first = await h.call("POST", "/api/gen/generate", {
      body: { prompt: "A fox", callback_url: "https://example.com/hook" },
    });
    expect(first.headers.get("x-request-id")).toBe("req_00000000-0000-4000-8000-000000000001");
    expect(await first.json()).toMatchObject({ task_id: "00000000-0000-4000-8000-000000000002" });
    await h.advance(60_000);
    const [event] = await h.engine.admin.listWebhookEvents("00000000-0000-4000-8000-000000000002");
    expect(event?.id).toBe("msg_00000000000040008000000000000003");
    expect(h.sender.deliveries[0]?.headers["webhook-id"]).toBe(event?.id);
  });

  it("gives two engines with equal sources the same ids", async () => {
    const ids = async () => {
      const h = await createHarness({}, { randomUUID: countingUUIDs() });
      return [await h.create({ prompt: "one" }), await h.create({ prompt: "two" })];
    };
    expect(await ids()).toEqual(await ids());
  });
});
