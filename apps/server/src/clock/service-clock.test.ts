import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../store/sqlite-store.js";
import { openServiceClock } from "./service-clock.js";

describe("service clock", () => {
  it("runs `scale` times faster than wall time, in whole milliseconds", async () => {
    const { db, store } = await openSqliteStore(":memory:");
    const clock = await openServiceClock(db, 1000);
    const first = clock.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const elapsed = clock.now() - first;
    expect(Number.isInteger(first)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(15_000);
    await store.close();
  });

  it("never starts behind the service time a previous process reached", async () => {
    const { db, store } = await openSqliteStore(":memory:");
    const fast = await openServiceClock(db, 100_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reached = fast.now();
    await fast.persist();
    expect(reached - Date.now()).toBeGreaterThan(1_000_000);
    const restarted = await openServiceClock(db, 1);
    expect(restarted.now()).toBeGreaterThanOrEqual(reached);
    await store.close();
  });

  it("starts after the newest stored row even when the high-water mark was never recorded", async () => {
    const { db, store } = await openSqliteStore(":memory:");
    const future = Date.now() + 3_600_000;
    await store.transaction(async (tx) => {
      await tx.insertAccount({ id: "a", name: "a", credits: 0, createdAt: future });
      await tx.appendLedger({
        id: "l",
        accountId: "a",
        taskId: null,
        delta: 5,
        reason: "grant",
        createdAt: future,
      });
    });
    expect((await openServiceClock(db, 1)).now()).toBeGreaterThanOrEqual(future);
    await store.close();
  });
});
