import { afterEach, describe, expect, it, vi } from "vitest";
import { createHarness, fakeVideoStorage, type Harness, START } from "../../test/support/harness.js";
import { createEngine } from "../engine.js";
import type { StoreTransaction } from "../ports.js";

/**
 * Renders held at a gate, all let go at once: their completions arrive while
 * the first one commits, as they do in a worker under load.
 */
function gateRenders(h: Harness): () => void {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  h.renderer.render = async (job) => {
    h.renderer.jobs.push(job);
    await gate;
    return { videoKey: `videos/${job.taskId}.mp4` };
  };
  return open;
}

/**
 * Watches the store's transactions: how many completions each one wrote, and
 * (when `failBatch`) fails, once, the first transaction that writes more than one.
 */
function watchCompletions(h: Harness, { failBatch = false } = {}) {
  const watched = { largestBatch: 0, failed: false };
  const transaction = h.store.transaction.bind(h.store);
  h.store.transaction = (work) =>
    transaction((tx) => {
      let completions = 0;
      const count = (patch: { state?: string }, tasks: number) => {
        if (patch.state !== "completed") return;
        completions += tasks;
        watched.largestBatch = Math.max(watched.largestBatch, completions);
        if (failBatch && completions > 1 && !watched.failed) {
          watched.failed = true;
          throw new Error("Connection terminated unexpectedly");
        }
      };
      const counting: StoreTransaction = {
        ...tx,
        async transitionTask(id, from, patch, leaseOwner) {
          count(patch, 1);
          return tx.transitionTask(id, from, patch, leaseOwner);
        },
        async transitionTasks(tasks, from, patch, leaseOwner) {
          count(patch, tasks.length);
          return tx.transitionTasks(tasks, from, patch, leaseOwner);
        },
        async transitionAndClaimTasks(ending, ...claim) {
          count(ending.patch, ending.tasks.length);
          return tx.transitionAndClaimTasks(ending, ...claim);
        },
      };
      return work(counting);
    });
  return watched;
}

const states = async (h: Harness, ids: string[]) =>
  Promise.all(ids.map(async (id) => (await h.store.transaction((tx) => tx.getTask(id)))?.state));

/** Five tasks due the moment they are rendered, claimed by one tick, their renders held at the gate. */
async function fiveRendering() {
  const h = await createHarness({ workerConcurrency: 5 });
  const open = gateRenders(h);
  const ids: string[] = [];
  for (let index = 0; index < 5; index++) ids.push(await h.create({ prompt: `fox ${index} [[delay:0s]]` }));
  await h.engine.tick();
  return { h, open, ids };
}

describe("completions of renders that end together", () => {
  it("commit together, each still fenced by its own lease", async () => {
    const { h, open, ids } = await fiveRendering();
    // Another worker took one task over (its lease ran out while this one was frozen).
    const [stolen, ...ours] = ids as [string, ...string[]];
    await h.store.transaction((tx) => tx.transitionTask(stolen, ["processing"], { leaseOwner: "other" }));
    const watched = watchCompletions(h);
    open();
    await h.engine.idle();
    expect(await states(h, ours)).toEqual(ours.map(() => "completed"));
    expect(await h.store.transaction((tx) => tx.getTask(stolen))).toMatchObject({
      state: "processing",
      leaseOwner: "other",
      videoKey: null,
    });
    expect(watched.largestBatch).toBeGreaterThan(1);
    expect((await h.engine.tick()).completed).toBe(ours.length);
  });

  it("are tried one by one when their batch fails: no render is lost or done twice", async () => {
    const { h, open, ids } = await fiveRendering();
    const watched = watchCompletions(h, { failBatch: true });
    open();
    await h.engine.idle();
    expect(watched.failed).toBe(true);
    expect(await states(h, ids)).toEqual(ids.map(() => "completed"));
    expect(h.renderer.jobs).toHaveLength(ids.length);
    const ledger = await h.engine.admin.listLedger(h.accountId);
    expect(ledger.filter((entry) => entry.reason === "charge")).toHaveLength(ids.length);
    expect(ledger.filter((entry) => entry.reason === "refund")).toHaveLength(0);
  });
});

describe("sweeps for work another engine holds", () => {
  it("end a frozen engine's rendered task within sweepIntervalMs of its generation time", async () => {
    const h = await createHarness({ workerConcurrency: 1, sweepIntervalMs: 250 });
    const taskId = await h.create({ prompt: "A fox [[delay:90s]]" });
    const frozen = createEngine({
      store: h.store,
      clock: h.clock,
      renderer: h.renderer,
      videoStorage: fakeVideoStorage,
      sender: h.sender,
      // Its lease outlives the test: the task is never released and claimed again, only helped.
      config: { leaseMs: 10 * 60_000 },
    });
    // The other engine claims and renders; its video is recorded, and then it ticks no more.
    await frozen.tick();
    await frozen.idle();
    expect(await h.store.transaction((tx) => tx.getTask(taskId))).toMatchObject({
      state: "processing",
      videoKey: expect.any(String),
    });
    for (let at = 89_000; at <= 90_250; at += 50) {
      h.clock.set(START + at);
      await h.engine.tick();
    }
    expect(await h.status(taskId)).toMatchObject({ status: "completed" });
    expect(h.renderer.jobs).toHaveLength(1);
  });

  it("time out a queued task no engine holds within sweepIntervalMs of its deadline", async () => {
    const h = await createHarness({ workerConcurrency: 1, sweepIntervalMs: 250 });
    h.renderer.mode = "hang";
    await h.create({ prompt: "takes the only render slot" });
    const waiting = await h.create({ prompt: "waits in the queue" });
    for (let at = 10 * 60_000 - 1000; at <= 10 * 60_000 + 250; at += 50) {
      h.clock.set(START + at);
      await h.engine.tick();
    }
    expect(await h.status(waiting)).toMatchObject({ status: "failed", message: "TIMEOUT" });
    await h.engine.drain();
  });
});

describe("a render whose lease runs out", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is stopped at the lease's end, its video is not recorded, and the task is claimed again", async () => {
    const h = await createHarness();
    // A clock that runs by itself (one service ms per real ms), so leases end on real timers.
    (h.clock as { scale?: number }).scale = 1;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    h.renderer.mode = "hang";
    const id = await h.create({ prompt: "a fox" });
    await h.engine.tick();
    expect(h.renderer.jobs).toHaveLength(1);
    const { leaseExpiresAt } = (await h.store.transaction((tx) => tx.getTask(id)))!;

    // No tick gets through meanwhile (the process cannot reach its database): nothing renews the
    // lease, and its end stops the render all the same.
    const leaseMs = leaseExpiresAt! - h.clock.now();
    h.clock.advance(leaseMs - 1);
    vi.advanceTimersByTime(leaseMs - 1);
    expect(h.renderer.aborted).toEqual([]);
    h.clock.advance(1);
    vi.advanceTimersByTime(1);
    expect(h.renderer.aborted).toEqual([id]);
    await h.engine.idle();
    expect(await h.store.transaction((tx) => tx.getTask(id))).toMatchObject({
      state: "processing",
      videoKey: null,
    });

    // The next tick lets the task go rather than renew it, and it is claimed and rendered anew.
    h.renderer.mode = "succeed";
    await h.engine.tick();
    await h.engine.idle();
    expect(h.renderer.jobs).toHaveLength(2);
    expect(await h.store.transaction((tx) => tx.getTask(id))).toMatchObject({ videoKey: `videos/${id}.mp4` });
  });
});
