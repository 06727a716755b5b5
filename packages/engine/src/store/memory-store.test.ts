import { describe, expect, it } from "vitest";
import { describeStoreContract, taskRecord } from "../testing/index.js";
import { createMemoryStore } from "./memory-store.js";

// The msw mock's store keeps the same contract as the server's stores: both embedders then run
// the engine on identical storage semantics.
describeStoreContract("engine memory store", () => createMemoryStore());

describe("MemoryStore beyond the contract", () => {
  it("claims oldest first, creation ties in insertion order", async () => {
    const store = createMemoryStore();
    await store.transaction(async (tx) => {
      for (const [id, at] of [
        ["c", 5],
        ["b", 1],
        ["z", 1],
        ["a", 1],
      ] as const)
        await tx.insertTask(taskRecord(id, { createdAt: at }));
    });
    const claimed = await store.transaction((tx) => tx.claimQueuedTasks("w", 3, 10, 20));
    expect(claimed.map((record) => record.id)).toEqual(["b", "z", "a"]);
  });

  it("hands out copies: mutating a result changes nothing stored", async () => {
    const store = createMemoryStore();
    await store.transaction((tx) => tx.insertTask(taskRecord("t1")));
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
