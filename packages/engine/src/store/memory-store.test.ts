import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../ports.js";
import { createMemoryStore } from "./memory-store.js";

function task(id: string, createdAt = 0): TaskRecord {
  return {
    id,
    accountId: "account",
    state: "queued",
    failureCode: null,
    request: { prompt: "Fox", model_type: "gen-3-fast", aspect_ratio: "16:9" },
    modelType: "gen-3-fast",
    aspectRatio: "16:9",
    callbackUrl: null,
    scenario: {},
    cost: 1,
    refundedAt: null,
    progress: 0,
    createdAt,
    updatedAt: createdAt,
    startedAt: null,
    finishAt: null,
    deadlineAt: createdAt + 600_000,
    completedAt: null,
    videoKey: null,
    leaseOwner: null,
    leaseExpiresAt: null,
  };
}

const account = { id: "account", name: "a", credits: 0, createdAt: 0 };

describe("MemoryStore", () => {
  it("undoes every change of a transaction that throws", async () => {
    const store = createMemoryStore();
    await store.transaction(async (tx) => {
      await tx.insertAccount(account);
      await tx.appendLedger({
        id: "l1",
        accountId: "account",
        taskId: null,
        delta: 5,
        reason: "grant",
        createdAt: 0,
      });
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.insertTask(task("t1"));
        await tx.appendLedger({
          id: "l2",
          accountId: "account",
          taskId: "t1",
          delta: -1,
          reason: "charge",
          createdAt: 0,
        });
        await tx.transitionTask("t1", ["queued"], { state: "failed" });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    await store.transaction(async (tx) => {
      expect(await tx.getTask("t1")).toBeUndefined();
      expect((await tx.getAccount("account"))?.credits).toBe(5);
      expect(await tx.listLedger("account")).toHaveLength(1);
    });
  });

  it("refuses a ledger entry that would overdraw, changing nothing", async () => {
    const store = createMemoryStore();
    await store.transaction(async (tx) => {
      await tx.insertAccount(account);
      expect(
        await tx.appendLedger({
          id: "l",
          accountId: "account",
          taskId: null,
          delta: -1,
          reason: "charge",
          createdAt: 0,
        }),
      ).toBe(false);
      expect(await tx.listLedger("account")).toEqual([]);
    });
  });

  it("lets exactly one of two racing transitions win", async () => {
    const store = createMemoryStore();
    await store.transaction((tx) => tx.insertTask(task("t1")));
    const results = await Promise.all([
      store.transaction((tx) => tx.transitionTask("t1", ["queued", "processing"], { state: "completed" })),
      store.transaction((tx) => tx.transitionTask("t1", ["queued", "processing"], { state: "failed" })),
    ]);
    expect(results.sort()).toEqual([false, true]);
  });

  it("guards transitions by lease owner", async () => {
    const store = createMemoryStore();
    await store.transaction((tx) => tx.insertTask(task("t1")));
    const [claimed] = await store.transaction((tx) => tx.claimQueuedTasks("w1", 5, 10, 100));
    expect(claimed).toMatchObject({
      state: "processing",
      leaseOwner: "w1",
      leaseExpiresAt: 100,
      startedAt: 10,
    });
    expect(
      await store.transaction((tx) => tx.transitionTask("t1", ["processing"], { progress: 5 }, "w2")),
    ).toBe(false);
    expect(
      await store.transaction((tx) => tx.transitionTask("t1", ["processing"], { progress: 5 }, "w1")),
    ).toBe(true);
  });

  it("claims oldest first, creation ties in insertion order", async () => {
    const store = createMemoryStore();
    await store.transaction(async (tx) => {
      for (const [id, at] of [
        ["c", 5],
        ["b", 1],
        ["z", 1],
        ["a", 1],
      ] as const)
        await tx.insertTask(task(id, at));
    });
    const claimed = await store.transaction((tx) => tx.claimQueuedTasks("w", 3, 10, 20));
    expect(claimed.map((record) => record.id)).toEqual(["b", "z", "a"]);
  });

  it("hands out copies: mutating a result changes nothing stored", async () => {
    const store = createMemoryStore();
    await store.transaction((tx) => tx.insertTask(task("t1")));
    const read = await store.transaction((tx) => tx.getTask("t1"));
    read!.state = "failed";
    read!.scenario.timeout = true;
    expect(await store.transaction((tx) => tx.getTask("t1"))).toMatchObject({
      state: "queued",
      scenario: {},
    });
  });

  it("refuses calls after its transaction ended", async () => {
    const store = createMemoryStore();
    const escaped = await store.transaction(async (tx) => tx);
    await expect(escaped.getTask("t1")).rejects.toThrow(/escaped/);
  });
});
