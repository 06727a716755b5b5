import { expect, it } from "vitest";
import type { Store } from "../../ports.js";
import { T0, taskRecord } from "./fixtures.js";

/** Tasks as stored, and compare-and-set transitions. */
export function transitions(current: () => Store): void {
  it("stores a task exactly as given", async () => {
    const store = current();
    const original = taskRecord("t-1", {
      request: {
        prompt: "a cat [[delay:90s]]",
        model_type: "gen-3",
        aspect_ratio: "9:16",
        reference_images: ["data:image/png;base64,iVBORw0KGgo="],
        callback_url: "https://example.com/hook",
      },
      modelType: "gen-3",
      aspectRatio: "9:16",
      callbackUrl: "https://example.com/hook",
      scenario: { delayMs: 90_000 },
      cost: 2,
      traceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    await store.transaction((tx) => tx.insertTask(original));
    expect(await store.transaction((tx) => tx.getTask("t-1"))).toEqual(original);
    expect(await store.transaction((tx) => tx.getTask("t-missing"))).toBeUndefined();
  });

  it("lets exactly one of two racing transitions win", async () => {
    const store = current();
    await store.transaction((tx) =>
      tx.insertTask(taskRecord("t-race", { state: "processing", leaseOwner: "w1" })),
    );
    const outcomes = await Promise.all([
      store.transaction((tx) =>
        tx.transitionTask("t-race", ["queued", "processing"], {
          state: "completed",
          videoKey: "v",
          completedAt: T0 + 1,
        }),
      ),
      store.transaction((tx) =>
        tx.transitionTask("t-race", ["queued", "processing"], {
          state: "failed",
          failureCode: "TIMEOUT",
          completedAt: T0 + 2,
        }),
      ),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const final = await store.transaction((tx) => tx.getTask("t-race"));
    expect(final?.state === "completed" ? final.failureCode : final?.videoKey).toBeNull();
  });

  it("applies a transition only while the lease is held by the named owner", async () => {
    const store = current();
    await store.transaction((tx) =>
      tx.insertTask(taskRecord("t-lease", { state: "processing", leaseOwner: "w1" })),
    );
    expect(
      await store.transaction((tx) => tx.transitionTask("t-lease", ["processing"], { progress: 50 }, "w2")),
    ).toBe(false);
    expect(
      await store.transaction((tx) => tx.transitionTask("t-lease", ["processing"], { progress: 50 }, "w1")),
    ).toBe(true);
    expect(await store.transaction((tx) => tx.transitionTask("t-lease", ["queued"], { progress: 60 }))).toBe(
      false,
    );
    const after = await store.transaction((tx) => tx.getTask("t-lease"));
    // Only the named fields change.
    expect(after).toEqual({
      ...taskRecord("t-lease", { state: "processing", leaseOwner: "w1" }),
      progress: 50,
    });
    expect(
      await store.transaction((tx) => tx.transitionTask("t-nope", ["processing"], { progress: 1 })),
    ).toBe(false);
  });

  it("transitions several tasks in one call, each its own compare-and-set with its own video key", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await tx.insertTask(taskRecord("t-ours-1", { state: "processing", leaseOwner: "w1" }));
      await tx.insertTask(
        taskRecord("t-ours-2", { state: "processing", leaseOwner: "w1", videoKey: "old.mp4" }),
      );
      await tx.insertTask(taskRecord("t-taken", { state: "processing", leaseOwner: "w2" }));
      await tx.insertTask(taskRecord("t-ended", { state: "failed", leaseOwner: null }));
    });
    const patch = { state: "completed" as const, progress: 100, completedAt: T0 + 1, leaseOwner: null };
    const changed = await store.transaction((tx) =>
      tx.transitionTasks(
        [
          { id: "t-ours-1", videoKey: "one.mp4" },
          { id: "t-ours-2" },
          { id: "t-taken", videoKey: "taken.mp4" },
          { id: "t-ended", videoKey: "ended.mp4" },
          { id: "t-missing", videoKey: "missing.mp4" },
        ],
        ["processing"],
        patch,
        "w1",
      ),
    );
    expect([...changed].sort()).toEqual(["t-ours-1", "t-ours-2"]);
    const task = (id: string) => store.transaction((tx) => tx.getTask(id));
    expect(await task("t-ours-1")).toMatchObject({ ...patch, videoKey: "one.mp4" });
    // No key of its own: the one it had stays.
    expect(await task("t-ours-2")).toMatchObject({ ...patch, videoKey: "old.mp4" });
    expect(await task("t-taken")).toMatchObject({ state: "processing", leaseOwner: "w2", videoKey: null });
    expect(await task("t-ended")).toMatchObject({ state: "failed", videoKey: null });
    expect(await store.transaction((tx) => tx.transitionTasks([], ["processing"], patch))).toEqual([]);
  });
}
