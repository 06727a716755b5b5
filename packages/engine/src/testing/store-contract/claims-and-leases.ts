import { expect, it } from "vitest";
import type { Store } from "../../ports.js";
import { account, MINUTE, T0, taskRecord } from "./fixtures.js";

/** Claims of queued tasks, leases, and the worker's sweeps. */
export function claimsAndLeases(current: () => Store): void {
  it("claims queued tasks oldest first, each once", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await tx.insertTask(taskRecord("t-c", { createdAt: T0 + 3 }));
      await tx.insertTask(taskRecord("t-a", { createdAt: T0 + 1 }));
      await tx.insertTask(taskRecord("t-b", { createdAt: T0 + 2 }));
      await tx.insertTask(taskRecord("t-p", { createdAt: T0, state: "processing" }));
    });
    const now = T0 + 10;
    const first = await store.transaction((tx) => tx.claimQueuedTasks("w1", 2, now, now + MINUTE));
    expect(first.map((t) => t.id)).toEqual(["t-a", "t-b"]);
    for (const claimed of first) {
      expect(claimed).toMatchObject({
        state: "processing",
        leaseOwner: "w1",
        leaseExpiresAt: now + MINUTE,
        startedAt: now,
      });
    }
    const second = await store.transaction((tx) => tx.claimQueuedTasks("w2", 5, now, now + MINUTE));
    expect(second.map((t) => t.id)).toEqual(["t-c"]);
    expect(await store.transaction((tx) => tx.claimQueuedTasks("w3", 5, now, now + MINUTE))).toEqual([]);
    expect((await store.transaction((tx) => tx.getTask("t-a")))?.leaseOwner).toBe("w1");
  });

  it("claims past tasks that need no render, stopping before one render too many", async () => {
    const store = current();
    const failing = { scenario: { fail: "UNSAFE_CONTENT" as const } };
    await store.transaction(async (tx) => {
      await tx.insertTask(taskRecord("t-1", { createdAt: T0 + 1 }));
      await tx.insertTask(taskRecord("t-2", { createdAt: T0 + 2, ...failing }));
      await tx.insertTask(taskRecord("t-3", { createdAt: T0 + 3, videoKey: "t-3.mp4" }));
      await tx.insertTask(taskRecord("t-4", { createdAt: T0 + 4 }));
      await tx.insertTask(taskRecord("t-5", { createdAt: T0 + 5, ...failing }));
      await tx.insertTask(taskRecord("t-6", { createdAt: T0 + 6 }));
    });
    const now = T0 + 10;
    const claim = (owner: string, renderLimit: number) =>
      store.transaction((tx) => tx.claimQueuedTasks(owner, 100, now, now + MINUTE, renderLimit));
    // Two renders allowed: t-1 and t-4 need one; t-5 comes before t-6, the third.
    expect((await claim("w1", 2)).map((t) => t.id)).toEqual(["t-1", "t-2", "t-3", "t-4", "t-5"]);
    expect(await claim("w2", 0)).toEqual([]);
    expect((await claim("w2", 1)).map((t) => t.id)).toEqual(["t-6"]);
    expect((await store.transaction((tx) => tx.getTask("t-6")))?.state).toBe("processing");
  });

  it("ends a worker's finished tasks and claims for it in one call, each end fenced by its lease", async () => {
    const store = current();
    const processing = (leaseOwner: string) => ({ state: "processing" as const, leaseOwner, startedAt: T0 });
    await store.transaction(async (tx) => {
      await tx.insertTask(taskRecord("t-ours", { createdAt: T0, ...processing("w1") }));
      await tx.insertTask(taskRecord("t-taken", { createdAt: T0, ...processing("w2") }));
      await tx.insertTask(taskRecord("t-q1", { createdAt: T0 + 1 }));
      await tx.insertTask(taskRecord("t-q2", { createdAt: T0 + 2 }));
    });
    const now = T0 + 10;
    const patch = { state: "completed" as const, progress: 100, completedAt: now, leaseOwner: null };
    const endAndClaim = (tasks: { id: string; videoKey?: string }[], limit: number) =>
      store.transaction((tx) =>
        tx.transitionAndClaimTasks({ tasks, from: ["processing"], patch }, "w1", limit, now, now + MINUTE),
      );
    const first = await endAndClaim(
      [
        { id: "t-ours", videoKey: "ours.mp4" },
        { id: "t-taken", videoKey: "taken.mp4" },
        { id: "t-missing", videoKey: "missing.mp4" },
      ],
      1,
    );
    expect(first.transitioned).toEqual(["t-ours"]);
    expect(first.claimed).toEqual([
      expect.objectContaining({
        id: "t-q1",
        state: "processing",
        leaseOwner: "w1",
        leaseExpiresAt: now + MINUTE,
      }),
    ]);
    const task = (id: string) => store.transaction((tx) => tx.getTask(id));
    expect(await task("t-ours")).toMatchObject({ ...patch, videoKey: "ours.mp4" });
    expect(await task("t-taken")).toMatchObject({ state: "processing", leaseOwner: "w2", videoKey: null });
    expect(await task("t-q2")).toMatchObject({ state: "queued", leaseOwner: null });
    // The queue empty after this claim, the end still counts; nothing to end, the claim alone.
    const second = await endAndClaim([{ id: "t-q1", videoKey: "q1.mp4" }], 5);
    expect(second.transitioned).toEqual(["t-q1"]);
    expect(second.claimed.map((claimed) => claimed.id)).toEqual(["t-q2"]);
    expect(await task("t-q1")).toMatchObject({ ...patch, videoKey: "q1.mp4" });
    expect(await endAndClaim([{ id: "t-q2", videoKey: "q2.mp4" }], 5)).toEqual({
      transitioned: ["t-q2"],
      claimed: [],
    });
    expect(await endAndClaim([], 5)).toEqual({ transitioned: [], claimed: [] });
  });

  it("never hands one queued task to two concurrent claimers", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      for (let index = 0; index < 20; index++)
        await tx.insertTask(taskRecord(`t-${index}`, { createdAt: T0 + index }));
    });
    const claims = await Promise.all(
      ["w1", "w2", "w3", "w4"].map((owner) =>
        store.transaction((tx) => tx.claimQueuedTasks(owner, 7, T0 + 100, T0 + MINUTE)),
      ),
    );
    const ids = claims.flat().map((t) => t.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });

  it("hands tasks whose lease ran out back to the queue, longest expired first, keeping their video", async () => {
    const store = current();
    const now = T0 + 5 * MINUTE;
    const leased = (id: string, leaseExpiresAt: number) =>
      taskRecord(id, {
        state: "processing",
        leaseOwner: "w",
        leaseExpiresAt,
        startedAt: T0,
        finishAt: now,
        videoKey: `${id}.mp4`,
      });
    await store.transaction(async (tx) => {
      await tx.insertTask(leased("expired-last", now));
      await tx.insertTask(leased("expired-first", now - 2));
      await tx.insertTask(leased("expired-second", now - 1));
      await tx.insertTask(leased("live", now + 1));
      await tx.insertTask(taskRecord("queued"));
    });
    expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 2))).toBe(2);
    const state = async (id: string) => (await store.transaction((tx) => tx.getTask(id)))?.state;
    expect(await state("expired-first")).toBe("queued");
    expect(await state("expired-second")).toBe("queued");
    expect(await state("expired-last")).toBe("processing");
    expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(1);
    expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(0);
    expect(await store.transaction((tx) => tx.getTask("expired-first"))).toMatchObject({
      state: "queued",
      leaseOwner: null,
      leaseExpiresAt: null,
      startedAt: null,
      finishAt: null,
      videoKey: "expired-first.mp4",
    });
    expect(await store.transaction((tx) => tx.getTask("live"))).toMatchObject({
      state: "processing",
      leaseOwner: "w",
    });
  });

  it("leaves a lease its owner renewed after it ran out: the expiry is part of the compare-and-set", async () => {
    const store = current();
    const now = T0 + 5 * MINUTE;
    await store.transaction((tx) =>
      tx.insertTask(taskRecord("late", { state: "processing", leaseOwner: "w", leaseExpiresAt: now - 1 })),
    );
    // The owner, frozen past its lease, wakes and renews before anyone released the task.
    expect(
      await store.transaction((tx) =>
        tx.transitionTask("late", ["processing"], { leaseExpiresAt: now + MINUTE }, "w"),
      ),
    ).toBe(true);
    expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(0);
    expect(await store.transaction((tx) => tx.getTask("late"))).toMatchObject({
      state: "processing",
      leaseOwner: "w",
      leaseExpiresAt: now + MINUTE,
    });
  });

  it("lists overdue tasks and due completions", async () => {
    const store = current();
    const now = T0 + 5 * MINUTE;
    await store.transaction(async (tx) => {
      await tx.insertTask(taskRecord("late-q", { deadlineAt: now - 5 }));
      await tx.insertTask(taskRecord("late-p", { state: "processing", deadlineAt: now }));
      await tx.insertTask(taskRecord("late-done", { state: "completed", deadlineAt: now - 9 }));
      await tx.insertTask(taskRecord("early", { deadlineAt: now + 1 }));
      await tx.insertTask(
        taskRecord("ready", {
          state: "processing",
          videoKey: "k",
          finishAt: now,
          deadlineAt: now + MINUTE,
        }),
      );
      await tx.insertTask(
        taskRecord("rendering", {
          state: "processing",
          videoKey: null,
          finishAt: now - 1,
          deadlineAt: now + MINUTE,
        }),
      );
      await tx.insertTask(
        taskRecord("doomed", {
          state: "processing",
          scenario: { fail: "UNSAFE_CONTENT" },
          finishAt: now - 2,
          deadlineAt: now + MINUTE,
        }),
      );
      await tx.insertTask(
        taskRecord("later", {
          state: "processing",
          videoKey: "k",
          finishAt: now + 1,
          deadlineAt: now + MINUTE,
        }),
      );
    });
    const [overdue, due, limited] = await store.transaction(async (tx) => [
      await tx.listOverdueTasks(now, 10),
      await tx.listDueCompletions(now, 10),
      await tx.listOverdueTasks(now, 1),
    ]);
    expect(overdue.map((t) => t.id).sort()).toEqual(["late-p", "late-q"]);
    expect(due.map((t) => t.id)).toEqual(["doomed", "ready"]);
    expect(limited).toHaveLength(1);
  });

  it("counts tasks overall and per account", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await tx.insertAccount(account("acc-2", "bob", 0));
      await tx.insertTask(taskRecord("t-1"));
      await tx.insertTask(taskRecord("t-2"));
      await tx.insertTask(taskRecord("t-3", { accountId: "acc-2" }));
    });
    expect(await store.transaction((tx) => tx.countTasks())).toBe(3);
    expect(await store.transaction((tx) => tx.countTasks("acc-1"))).toBe(2);
    expect(await store.transaction((tx) => tx.countTasks("acc-3"))).toBe(0);
  });
}
