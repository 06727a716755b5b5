import { describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../test/support/harness.js";
import type { StoreTransaction } from "../ports.js";

/** Renders that end when the test says (or are aborted), counting how many run at once. */
function handFinishedRenders(h: Harness) {
  const waiting = new Map<string, () => void>();
  const state = { running: 0, mostAtOnce: 0, started: [] as string[] };
  h.renderer.render = (job, signal) =>
    new Promise((resolve, reject) => {
      state.running++;
      state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
      state.started.push(job.taskId);
      waiting.set(job.taskId, () => {
        state.running--;
        resolve({ videoKey: `videos/${job.taskId}.mp4` });
      });
      signal.addEventListener("abort", () => {
        state.running--;
        reject(signal.reason);
      });
    });
  return {
    state,
    /** Ends the render of `taskId`, then lets the worker act on it (its completion, a refill). */
    async finish(taskId: string) {
      waiting.get(taskId)!();
      waiting.delete(taskId);
      await settle();
    },
  };
}

/** A few turns of the event loop: enough for a render's completion and a claim against the memory store. */
async function settle() {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}

async function states(h: Harness, ids: string[]) {
  const tasks = await Promise.all(ids.map((id) => h.store.transaction((tx) => tx.getTask(id))));
  return tasks.map((task) => task?.state);
}

describe("refilling render slots as they free (refillSlots)", () => {
  it("claims the next task when a slot frees, before any tick, never past the concurrency", async () => {
    const h = await createHarness({ workerConcurrency: 2, refillSlots: true, generationMs: 0 });
    const renders = handFinishedRenders(h);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push(await h.create({ prompt: `A fox ${index}` }));
    expect(await h.engine.tick()).toMatchObject({ claimed: 2, rendersStarted: 2 });
    expect(await states(h, ids)).toEqual(["processing", "processing", "queued", "queued", "queued"]);

    // No tick from here on: each slot that frees is filled by the worker itself, oldest task first.
    await renders.finish(ids[0]!);
    expect(renders.state.started).toEqual(ids.slice(0, 3));
    expect(await states(h, ids)).toEqual(["completed", "processing", "processing", "queued", "queued"]);
    await renders.finish(ids[1]!);
    await renders.finish(ids[2]!);
    await renders.finish(ids[3]!);
    await renders.finish(ids[4]!);
    expect(await states(h, ids)).toEqual(ids.map(() => "completed"));
    expect(renders.state.mostAtOnce).toBe(2);
    // The next tick reports what the refills claimed and started, and what the renders completed.
    expect(await h.engine.tick()).toMatchObject({ claimed: 3, rendersStarted: 3, completed: 5 });
    // Charged once each: 1 000 credits, 5 tasks.
    const account = (await (await h.call("GET", "/api/gen/account")).json()) as { credits: number };
    expect(account.credits).toBe(995);
  });

  it("claims once half the slots are free, for all of them", async () => {
    const h = await createHarness({ workerConcurrency: 4, refillSlots: true, generationMs: 0 });
    const renders = handFinishedRenders(h);
    const ids: string[] = [];
    for (let index = 0; index < 8; index++) ids.push(await h.create({ prompt: `A fox ${index}` }));
    expect(await h.engine.tick()).toMatchObject({ claimed: 4 });
    await renders.finish(ids[0]!);
    // One slot of four free: no claim yet.
    expect(renders.state.started).toEqual(ids.slice(0, 4));
    await renders.finish(ids[1]!);
    // Two of four: one claim for both.
    expect(renders.state.started).toEqual(ids.slice(0, 6));
    expect(await states(h, ids)).toEqual([
      ...["completed", "completed"],
      ...["processing", "processing", "processing", "processing"],
      ...["queued", "queued"],
    ]);
    expect(await h.engine.tick()).toMatchObject({ claimed: 2 });
  });

  it("completes the renders that ended in the refill's claim, and on their own should it fail", async () => {
    const h = await createHarness({ workerConcurrency: 2, refillSlots: true, generationMs: 0 });
    const renders = handFinishedRenders(h);
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) ids.push(await h.create({ prompt: `A fox ${index}` }));
    await h.engine.tick();
    // Task ids a claim carried (a store may run a transaction's work twice: see `rehearse`).
    const carried = new Set<string>();
    let failNext = false;
    const transaction = h.store.transaction.bind(h.store);
    h.store.transaction = <T>(work: (tx: StoreTransaction) => Promise<T>) =>
      transaction((tx) =>
        work({
          ...tx,
          async transitionAndClaimTasks(ending, ...claim) {
            for (const task of ending.tasks) carried.add(task.id);
            if (failNext) {
              failNext = false;
              throw new Error("Connection terminated unexpectedly");
            }
            return tx.transitionAndClaimTasks(ending, ...claim);
          },
        }),
      );
    // Half the slots free: the claim for them completes the render that freed them.
    await renders.finish(ids[0]!);
    expect([...carried]).toEqual([ids[0]]);
    expect(await states(h, ids.slice(0, 3))).toEqual(["completed", "processing", "processing"]);
    // That claim fails: the completion goes on its own, and the slot waits for the next tick.
    failNext = true;
    await renders.finish(ids[1]!);
    expect([...carried]).toEqual([ids[0], ids[1]]);
    expect(await states(h, ids.slice(1, 4))).toEqual(["completed", "processing", "queued"]);
    expect(await h.engine.tick()).toMatchObject({ claimed: 2 });
    expect(await states(h, ids.slice(3))).toEqual(["processing", "queued", "queued"]);
  });

  it("leaves slots to the next tick once a claim came back short (the queue was empty)", async () => {
    const h = await createHarness({ workerConcurrency: 2, refillSlots: true, generationMs: 0 });
    const renders = handFinishedRenders(h);
    const first = await h.create({ prompt: "A fox" });
    expect(await h.engine.tick()).toMatchObject({ claimed: 1 });
    const second = await h.create({ prompt: "A second fox" });
    await renders.finish(first);
    // No claim of its own: a task created since waits for the tick that new work wakes.
    expect(await states(h, [first, second])).toEqual(["completed", "queued"]);
    expect(await h.engine.tick()).toMatchObject({ claimed: 1 });
    expect(await states(h, [second])).toEqual(["processing"]);
    await renders.finish(second);
    expect(await states(h, [second])).toEqual(["completed"]);
  });

  it("without refillSlots, a freed slot waits for the tick", async () => {
    const h = await createHarness({ workerConcurrency: 2, generationMs: 0 });
    const renders = handFinishedRenders(h);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push(await h.create({ prompt: `A fox ${index}` }));
    await h.engine.tick();
    await renders.finish(ids[0]!);
    expect(await states(h, ids)).toEqual(["completed", "processing", "queued"]);
    expect(await h.engine.tick()).toMatchObject({ claimed: 1 });
  });

  it("a refill claiming while the worker drains hands its tasks back to the queue unrendered", async () => {
    const h = await createHarness({ workerConcurrency: 2, refillSlots: true, generationMs: 0 });
    const renders = handFinishedRenders(h);
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push(await h.create({ prompt: `A fox ${index}` }));
    await h.engine.tick();
    // The next claim waits until the test lets it go: the drain begins while it is in flight.
    let releaseClaim: () => void = () => undefined;
    const claimHeld = new Promise<void>((resolve) => (releaseClaim = resolve));
    const transaction = h.store.transaction.bind(h.store);
    h.store.transaction = <T>(work: (tx: StoreTransaction) => Promise<T>) =>
      transaction((tx) =>
        work(
          new Proxy(tx, {
            get(target, property, receiver) {
              const value = Reflect.get(target, property, receiver);
              if (property !== "claimQueuedTasks") return value;
              return async (...args: unknown[]) => {
                await claimHeld;
                return (value as (...values: unknown[]) => unknown).apply(target, args);
              };
            },
          }),
        ),
      );
    await renders.finish(ids[0]!);
    const drained = h.engine.drain();
    releaseClaim();
    // The other render in flight is aborted by the drain.
    await drained;
    expect(renders.state.started).toEqual(ids.slice(0, 2));
    expect(await states(h, ids)).toEqual(["completed", "queued", "queued", "queued"]);
    const held = await Promise.all(ids.map((id) => h.store.transaction((tx) => tx.getTask(id))));
    expect(held.map((task) => task?.leaseOwner ?? null)).toEqual([null, null, null, null]);
  });
});
