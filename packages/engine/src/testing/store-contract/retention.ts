import { expect, it } from "vitest";
import type { AccountRecord, LedgerEntry, Store, StoreTransaction, TaskState } from "../../ports.js";
import { account, event, ledger, MINUTE, T0, taskRecord } from "./fixtures.js";

const DAY = 24 * 60 * MINUTE;

/** A task of `accountId` created at `at`, ended (or not) at `at + 1 min`, charged `cost`, refunded when failed. */
async function taskWithHistory(
  tx: StoreTransaction,
  id: string,
  accountId: string,
  state: TaskState,
  at: number,
  cost = 2,
): Promise<void> {
  const charge: LedgerEntry = {
    id: `c-${id}`,
    accountId,
    taskId: id,
    delta: -cost,
    reason: "charge",
    createdAt: at,
  };
  expect(
    await tx.insertChargedTask(taskRecord(id, { accountId, cost, createdAt: at, updatedAt: at }), charge),
  ).toBe(true);
  const endedAt = at + MINUTE;
  await tx.transitionTask(id, ["queued"], { state, updatedAt: endedAt });
  if (state === "failed")
    await tx.appendLedger({
      id: `r-${id}`,
      accountId,
      taskId: id,
      delta: cost,
      reason: "refund",
      createdAt: endedAt,
    });
  await tx.insertWebhookEvent(
    event(`msg_${id}`, {
      taskId: id,
      accountId,
      state: "delivered",
      attemptCount: 1,
      nextAttemptAt: null,
      createdAt: endedAt,
    }),
  );
  await tx.insertWebhookAttempt({
    eventId: `msg_${id}`,
    attempt: 1,
    startedAt: endedAt,
    durationMs: 5,
    statusCode: 200,
    error: null,
  });
}

const ledgerSum = (entries: LedgerEntry[]) => entries.reduce((sum, entry) => sum + entry.delta, 0);

/** History retention: ended tasks go in bounded batches, balances and ledger sums stay exact. */
export function retention(current: () => Store): void {
  it("deletes ended tasks past the age with their events and attempts, oldest first, in batches of the limit", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await tx.insertAccount(account("acc-2", "bob", 0));
      await tx.appendLedger(ledger("g-1", "acc-1", 90, "grant"));
      await tx.appendLedger(ledger("g-2", "acc-2", 100, "grant"));
      await taskWithHistory(tx, "old-1", "acc-1", "completed", T0);
      await taskWithHistory(tx, "old-2", "acc-1", "failed", T0 + 1);
      await taskWithHistory(tx, "old-3", "acc-2", "completed", T0 + 2, 3);
      await taskWithHistory(tx, "young", "acc-1", "completed", T0 + 40 * DAY);
      // Ended long ago but still delivering its webhook: kept until the delivery ends.
      await taskWithHistory(tx, "delivering", "acc-2", "completed", T0 + 3);
      await tx.updateWebhookEvent("msg_delivering", { state: "pending", nextAttemptAt: T0 + 41 * DAY });
      // Never ended: not history.
      await tx.insertTask(taskRecord("running", { state: "processing", createdAt: T0, updatedAt: T0 }));
    });
    const balances = async () =>
      store.transaction(async (tx) =>
        Promise.all(
          ["acc-1", "acc-2"].map(async (id) => ({
            credits: ((await tx.getAccount(id)) as AccountRecord).credits,
            ledger: ledgerSum(await tx.listLedger(id)),
          })),
        ),
      );
    const before = await balances();
    // The fixture account starts with 10 credits and no entry: its ledger sums to 10 less.
    expect(before).toEqual([
      { credits: 10 + 90 - 2 - 2 + 2 - 2, ledger: 90 - 2 - 2 + 2 - 2 },
      { credits: 100 - 3 - 2, ledger: 100 - 3 - 2 },
    ]);

    const cutoff = T0 + 30 * DAY;
    const first = await store.transaction((tx) => tx.deleteEndedTasks(cutoff, T0 - DAY, 2));
    expect(first).toEqual({ tasks: 2, ledgerEntries: 3, webhookEvents: 2, webhookAttempts: 2, forgotten: 0 });
    const second = await store.transaction((tx) => tx.deleteEndedTasks(cutoff, T0 - DAY, 2));
    expect(second).toEqual({
      tasks: 1,
      ledgerEntries: 1,
      webhookEvents: 1,
      webhookAttempts: 1,
      forgotten: 0,
    });
    const third = await store.transaction((tx) => tx.deleteEndedTasks(cutoff, T0 - DAY, 2));
    expect(third).toEqual({ tasks: 0, ledgerEntries: 0, webhookEvents: 0, webhookAttempts: 0, forgotten: 0 });

    // Balances unchanged, and each ledger sums to what it summed to.
    expect(await balances()).toEqual(before);
    const [gone, kept, ledger1, ledger2, events, attempts, retired] = await store.transaction(async (tx) => [
      await Promise.all(["old-1", "old-2", "old-3"].map((id) => tx.getTask(id))),
      await Promise.all(["young", "delivering", "running"].map(async (id) => (await tx.getTask(id))?.id)),
      await tx.listLedger("acc-1"),
      await tx.listLedger("acc-2"),
      await tx.listWebhookEvents("old-1"),
      await tx.listWebhookAttempts("msg_old-1"),
      await tx.getRetiredTask("old-2"),
    ]);
    expect(gone).toEqual([undefined, undefined, undefined]);
    expect(kept).toEqual(["young", "delivering", "running"]);
    expect(events).toEqual([]);
    expect(attempts).toEqual([]);
    expect(retired).toEqual({ id: "old-2", accountId: "acc-1", endedAt: T0 + 1 + MINUTE });
    const byId = (entries: unknown) => [...(entries as LedgerEntry[])].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(byId(ledger1)).toEqual([
      {
        id: "c-young",
        accountId: "acc-1",
        taskId: "young",
        delta: -2,
        reason: "charge",
        createdAt: T0 + 40 * DAY,
      },
      // old-1's charge (-2), old-2's charge and refund (0); the time of the newest of them.
      {
        id: "carried-forward:acc-1",
        accountId: "acc-1",
        taskId: null,
        delta: -2,
        reason: "carried_forward",
        createdAt: T0 + 1 + MINUTE,
      },
      { id: "g-1", accountId: "acc-1", taskId: null, delta: 90, reason: "grant", createdAt: T0 },
    ]);
    expect(byId(ledger2).map((entry) => [entry.id, entry.delta])).toEqual([
      ["c-delivering", -2],
      ["carried-forward:acc-2", -3],
      ["g-2", 100],
    ]);
  });

  it("carries forward again onto the same entry, and forgets retired tasks past the second age", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await taskWithHistory(tx, "a", "acc-1", "completed", T0, 1);
      await taskWithHistory(tx, "b", "acc-1", "completed", T0 + DAY, 1);
    });
    await store.transaction((tx) => tx.deleteEndedTasks(T0 + DAY / 2, T0 - DAY, 10));
    await store.transaction((tx) => tx.deleteEndedTasks(T0 + 2 * DAY, T0 - DAY, 10));
    const entries = await store.transaction((tx) => tx.listLedger("acc-1"));
    expect(entries).toEqual([
      {
        id: "carried-forward:acc-1",
        accountId: "acc-1",
        taskId: null,
        delta: -2,
        reason: "carried_forward",
        createdAt: T0 + DAY,
      },
    ]);
    expect((await store.transaction((tx) => tx.getAccount("acc-1")))?.credits).toBe(8);
    // The record that "a" existed goes once it ended before the second age; "b"'s stays.
    const forgetting = await store.transaction((tx) => tx.deleteEndedTasks(T0 + 2 * DAY, T0 + DAY / 2, 10));
    expect(forgetting.forgotten).toBe(1);
    expect(await store.transaction((tx) => tx.getRetiredTask("a"))).toBeUndefined();
    expect(await store.transaction((tx) => tx.getRetiredTask("b"))).toMatchObject({
      id: "b",
      accountId: "acc-1",
    });
  });

  it("deletes nothing when the batch's transaction fails", async () => {
    const store = current();
    await store.transaction((tx) => taskWithHistory(tx, "kept", "acc-1", "completed", T0));
    await expect(
      store.transaction(async (tx) => {
        await tx.deleteEndedTasks(T0 + DAY, T0, 10);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const [task, entries, retired] = await store.transaction(async (tx) => [
      await tx.getTask("kept"),
      await tx.listLedger("acc-1"),
      await tx.getRetiredTask("kept"),
    ]);
    expect(task).toMatchObject({ id: "kept", state: "completed" });
    expect((entries as LedgerEntry[]).map((entry) => entry.reason)).toEqual(["charge"]);
    expect(retired).toBeUndefined();
  });
}
