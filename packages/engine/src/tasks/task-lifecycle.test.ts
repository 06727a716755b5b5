import { describe, expect, it } from "vitest";
import { createHarness, fakeVideoStorage, type Harness, START } from "../../test/support/harness.js";
import { createEngine } from "../engine.js";

async function credits(h: Harness): Promise<number> {
  const response = await h.call("GET", "/api/gen/account");
  return ((await response.json()) as { credits: number }).credits;
}

describe("scenarios at the status endpoint", () => {
  it("[[fail:UNSAFE_CONTENT]] fails after the generation time, without a refund", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox [[fail:UNSAFE_CONTENT]]" });
    expect(await credits(h)).toBe(999);
    await h.advance(59_000);
    expect(await h.status(taskId)).toMatchObject({ status: "processing" });
    await h.advance(1_000);
    expect(await h.status(taskId)).toMatchObject({
      status: "failed",
      message: "UNSAFE_CONTENT",
      video_url: null,
    });
    expect(await credits(h)).toBe(999);
    expect(h.renderer.jobs).toHaveLength(0);
  });

  it("an unsafe word yields UNSAFE_CONTENT", async () => {
    const h = await createHarness({ unsafeWords: ["gore"] });
    const taskId = await h.create({ prompt: "Lots of gore" });
    await h.advance(60_000);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: "UNSAFE_CONTENT" });
  });

  it("[[fail:GENERATION_FAILED]] fails and refunds once", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox [[fail:GENERATION_FAILED]]", model_type: "gen-3" });
    expect(await credits(h)).toBe(998);
    await h.advance(60_000);
    expect(await h.status(taskId)).toMatchObject({
      status: "failed",
      message: "GENERATION_FAILED",
      video_url: null,
    });
    await h.advance(20 * 60_000);
    expect(await credits(h)).toBe(1000);
    const ledger = await h.engine.admin.listLedger(h.accountId);
    expect(ledger.map((entry) => [entry.reason, entry.delta])).toEqual([
      ["grant", 1000],
      ["charge", -2],
      ["refund", 2],
    ]);
  });

  it("a renderer that rejects fails the task with GENERATION_FAILED and refunds", async () => {
    const h = await createHarness();
    h.renderer.mode = "fail";
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(0);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: "GENERATION_FAILED" });
    expect(await credits(h)).toBe(1000);
  });

  it("[[delay:90s]] takes 90 s of service time", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox [[delay:90s]]" });
    await h.advance(89_999);
    expect(await h.status(taskId)).toMatchObject({ status: "processing", progress: 99 });
    await h.advance(1);
    expect(await h.status(taskId)).toMatchObject({ status: "completed", video_url: expect.any(String) });
  });

  it("[[timeout]] never finishes: TIMEOUT at the 10-minute deadline, refund visible at /account", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox [[timeout]]" });
    expect(await credits(h)).toBe(999);
    await h.advance(10 * 60_000 - 1);
    expect(await h.status(taskId)).toMatchObject({ status: "processing" });
    await h.advance(1);
    expect(await h.status(taskId)).toMatchObject({
      status: "failed",
      message: "TIMEOUT",
      video_url: null,
      updated_at: "2026-01-01T00:10:00.000Z",
    });
    expect(await credits(h)).toBe(1000);
  });

  it("a delay past the deadline ends in TIMEOUT and aborts a hanging render", async () => {
    const h = await createHarness();
    h.renderer.mode = "hang";
    const taskId = await h.create({ prompt: "A fox [[delay:15m]]" });
    await h.engine.tick();
    h.clock.advance(10 * 60_000);
    await h.engine.tick();
    await h.engine.idle();
    expect(h.renderer.aborted).toEqual([taskId]);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: "TIMEOUT" });
    expect(await credits(h)).toBe(1000);
  });

  it("queue time counts towards the deadline: a task never claimed times out", async () => {
    const h = await createHarness({ workerConcurrency: 1 });
    h.renderer.mode = "hang";
    const first = await h.create({ prompt: "first" });
    const second = await h.create({ prompt: "second" });
    await h.engine.tick();
    expect(await h.status(second)).toMatchObject({ status: "queued" });
    h.clock.advance(10 * 60_000);
    await h.engine.tick();
    await h.engine.idle();
    expect(await h.status(first)).toMatchObject({ status: "failed", message: "TIMEOUT" });
    expect(await h.status(second)).toMatchObject({ status: "failed", message: "TIMEOUT" });
    expect(await credits(h)).toBe(1000);
  });

  it("a late tick still completes a task that was due before its deadline", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(30 * 60_000);
    expect(await h.status(taskId)).toMatchObject({ status: "completed" });
    expect(await credits(h)).toBe(999);
  });

  it("exactly one terminal state wins when a render finishes after the deadline", async () => {
    const h = await createHarness();
    let finish: (value: { videoKey: string }) => void = () => {};
    h.renderer.render = () => new Promise((resolve) => (finish = resolve));
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.tick();
    h.clock.advance(10 * 60_000);
    await h.engine.tick();
    finish({ videoKey: "late.mp4" });
    await h.advance(60_000);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: "TIMEOUT" });
    expect(await credits(h)).toBe(1000);
  });
});

describe("a render that ends after its generation time", () => {
  it("completes its task at once, counted once, and says that its slot is free", async () => {
    let renderEnds = 0;
    const h = await createHarness({}, { onRenderEnded: () => renderEnds++ });
    let finish: (value: { videoKey: string }) => void = () => {};
    h.renderer.render = () => new Promise((resolve) => (finish = resolve));
    const taskId = await h.create({ prompt: "A fox" });
    expect(await h.engine.tick()).toMatchObject({ claimed: 1, rendersStarted: 1 });
    h.clock.advance(60_000);
    finish({ videoKey: "videos/fox.mp4" });
    await h.engine.idle();
    expect(renderEnds).toBe(1);
    // No tick since the render ended: the render's own transaction completed the task.
    expect(await h.status(taskId)).toMatchObject({ status: "completed", progress: 100 });
    expect(await h.engine.tick()).toMatchObject({ completed: 1 });
    expect(await h.engine.tick()).toMatchObject({ completed: 0 });
    expect((await h.store.transaction((tx) => tx.getTask(taskId)))?.videoKey).toBe("videos/fox.mp4");
  });

  it("says so once half the render slots are free, so one claim fills them", async () => {
    let renderEnds = 0;
    const h = await createHarness({ workerConcurrency: 4 }, { onRenderEnded: () => renderEnds++ });
    const finishers: (() => void)[] = [];
    h.renderer.render = (job) =>
      new Promise((resolve) => finishers.push(() => resolve({ videoKey: `videos/${job.taskId}.mp4` })));
    for (let index = 0; index < 4; index++) await h.create({ prompt: `A fox ${index}` });
    expect(await h.engine.tick()).toMatchObject({ rendersStarted: 4 });
    const ended: number[] = [];
    for (const finish of finishers) {
      finish();
      // One turn of the event loop: that render's transaction commits.
      await new Promise((resolve) => setTimeout(resolve, 0));
      ended.push(renderEnds);
    }
    await h.engine.idle();
    // 3 renders left: not yet; 2, 1, 0 left: each says so (an embedder's wakes coalesce).
    expect(ended).toEqual([0, 1, 2, 3]);
  });

  it("a task's generation end is known from creation; a released task is given it again when claimed", async () => {
    const h = await createHarness();
    h.renderer.mode = "hang";
    const taskId = await h.create({ prompt: "A fox [[delay:90s]]" });
    const stored = () => h.store.transaction((tx) => tx.getTask(taskId));
    expect(await stored()).toMatchObject({ state: "queued", finishAt: START + 90_000 });
    await h.engine.tick();
    expect(await stored()).toMatchObject({ state: "processing", finishAt: START + 90_000 });
    await h.engine.drain();
    expect(await stored()).toMatchObject({ state: "queued", finishAt: null });
    const other = createEngine({
      store: h.store,
      clock: h.clock,
      renderer: h.renderer,
      videoStorage: fakeVideoStorage,
      sender: h.sender,
    });
    expect(await other.tick()).toMatchObject({ claimed: 1 });
    expect(await stored()).toMatchObject({ state: "processing", finishAt: START + 90_000 });
    await other.drain();
  });

  it("before its generation time, only records the video; the task completes when due", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.tick();
    await h.engine.idle();
    expect(await h.status(taskId)).toMatchObject({ status: "processing" });
    await h.advance(60_000);
    expect(await h.status(taskId)).toMatchObject({ status: "completed" });
  });
});

describe("concurrency and leases", () => {
  it("renders at most workerConcurrency tasks at once; scenario tasks take no slot", async () => {
    const h = await createHarness({ workerConcurrency: 2 });
    h.renderer.mode = "hang";
    await h.create({ prompt: "[[timeout]]" });
    for (let index = 0; index < 4; index++) await h.create({ prompt: `fox ${index}` });
    const report = await h.engine.tick();
    expect(report).toMatchObject({ claimed: 3, rendersStarted: 2 });
    await h.engine.drain();
  });

  it("returns a crashed worker's tasks to the queue once its lease expires", async () => {
    const h = await createHarness({ leaseMs: 30_000 });
    const taskId = await h.create({ prompt: "A fox" });
    // A worker that claimed the task and died: its lease runs out.
    await h.store.transaction((tx) =>
      tx.claimQueuedTasks("dead-worker", 1, h.clock.now(), h.clock.now() + 30_000),
    );
    await h.advance(29_000);
    expect(h.renderer.jobs).toHaveLength(0);
    await h.advance(1_000);
    expect(h.renderer.jobs).toHaveLength(1);
    await h.advance(30_000);
    expect(await h.status(taskId)).toMatchObject({ status: "completed" });
  });

  it("lets go of a task whose render cannot be recorded (a store error): it is rendered again, not failed", async () => {
    const h = await createHarness({ leaseMs: 30_000 });
    const before = await credits(h);
    // The transaction after the first render fails, as one on a session PostgreSQL ended would.
    const transaction = h.store.transaction.bind(h.store);
    let failNext = false;
    h.store.transaction = (work) => {
      if (!failNext) return transaction(work);
      failNext = false;
      return Promise.reject(new Error("Connection terminated unexpectedly"));
    };
    // The first render ends when the test says, once the tick that started it is over.
    const render = h.renderer.render.bind(h.renderer);
    let endFirstRender = () => {};
    h.renderer.render = async (job, signal) => {
      const rendered = await render(job, signal);
      if (h.renderer.jobs.length > 1) return rendered;
      await new Promise<void>((resolve) => {
        endFirstRender = resolve;
      });
      failNext = true;
      return rendered;
    };
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.tick();
    endFirstRender();
    await h.engine.idle();
    expect(await h.status(taskId)).toMatchObject({ status: "processing" });
    // Its lease runs out unrenewed; the task is claimed again and rendered again.
    await h.advance(30_000);
    await h.engine.idle();
    expect(h.renderer.jobs).toHaveLength(2);
    await h.advance(30_000);
    expect(await h.status(taskId)).toMatchObject({ status: "completed" });
    expect(await credits(h)).toBe(before - 1);
  });

  it("renews a rendering task's lease once half of it is used, not on every tick", async () => {
    const h = await createHarness({ leaseMs: 40_000 });
    h.renderer.mode = "hang";
    const taskId = await h.create({ prompt: "A fox" });
    const lease = async () => (await h.store.transaction((tx) => tx.getTask(taskId)))?.leaseExpiresAt;
    await h.engine.tick();
    const first = await lease();
    expect(first).toBe(h.clock.now() + 40_000);
    h.clock.advance(19_000);
    await h.engine.tick();
    expect(await lease()).toBe(first);
    h.clock.advance(2_000);
    await h.engine.tick();
    expect(await lease()).toBe(h.clock.now() + 40_000);
    // Well past the first lease, the task is still ours: nobody took it back.
    h.clock.advance(30_000);
    await h.engine.tick();
    expect(await h.store.transaction((tx) => tx.getTask(taskId))).toMatchObject({
      state: "processing",
      leaseExpiresAt: h.clock.now() + 40_000,
    });
    expect(h.renderer.jobs).toHaveLength(1);
    await h.engine.drain();
  });

  it("drain aborts renders and hands their tasks back to the queue", async () => {
    const h = await createHarness();
    h.renderer.mode = "hang";
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.tick();
    expect(await h.status(taskId)).toMatchObject({ status: "processing" });
    await h.engine.drain();
    expect(h.renderer.aborted).toEqual([taskId]);
    expect(await h.status(taskId)).toMatchObject({ status: "queued" });
    expect(await h.engine.tick()).toMatchObject({ claimed: 0 });
  });
});
