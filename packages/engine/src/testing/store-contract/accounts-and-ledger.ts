import { expect, it } from "vitest";
import type { AccountRecord, Store } from "../../ports.js";
import { account, ledger, T0, taskRecord } from "./fixtures.js";

/** Accounts, the ledger, and transactions that commit whole or not at all. */
export function accountsAndLedger(current: () => Store): void {
  it("keeps accounts and moves credits only through the ledger", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await tx.insertAccount(account("acc-2", "bob", 0));
      await tx.appendLedger(ledger("l-1", "acc-2", 1000, "grant"));
      await tx.appendLedger({ ...ledger("l-2", "acc-2", -2, "charge"), taskId: "task-x" });
    });
    const [bob, byName, all, entries] = await store.transaction(async (tx) => [
      await tx.getAccount("acc-2"),
      await tx.getAccountByName("bob"),
      await tx.listAccounts(),
      await tx.listLedger("acc-2"),
    ]);
    expect(bob).toEqual({ id: "acc-2", name: "bob", credits: 998, createdAt: T0 });
    expect(byName).toEqual(bob);
    expect((all as AccountRecord[]).map((a) => a.name).sort()).toEqual(["alice", "bob"]);
    expect(entries).toEqual([
      { id: "l-1", accountId: "acc-2", taskId: null, delta: 1000, reason: "grant", createdAt: T0 },
      { id: "l-2", accountId: "acc-2", taskId: "task-x", delta: -2, reason: "charge", createdAt: T0 },
    ]);
    expect(await store.transaction((tx) => tx.getAccount("nobody"))).toBeUndefined();
  });

  it("refuses a ledger entry that would overdraw the account, changing nothing", async () => {
    const store = current();
    const outcome = await store.transaction((tx) =>
      tx.appendLedger(ledger("l-over", "acc-1", -11, "charge")),
    );
    expect(outcome).toBe(false);
    expect(await store.transaction((tx) => tx.appendLedger(ledger("l-all", "acc-1", -10, "charge")))).toBe(
      true,
    );
    const [alice, entries] = await store.transaction(async (tx) => [
      await tx.getAccount("acc-1"),
      await tx.listLedger("acc-1"),
    ]);
    expect((alice as AccountRecord).credits).toBe(0);
    expect((entries as unknown[]).length).toBe(1);
    await expect(
      store.transaction((tx) => tx.appendLedger(ledger("l-x", "acc-none", 1, "grant"))),
    ).rejects.toThrow();
  });

  it("commits all of a transaction or none of it", async () => {
    const store = current();
    await store.transaction((tx) => tx.insertTask(taskRecord("t-kept")));
    await expect(
      store.transaction(async (tx) => {
        await tx.appendLedger(ledger("l-9", "acc-1", -3, "charge"));
        await tx.insertTask(taskRecord("t-rollback"));
        await tx.transitionTask("t-kept", ["queued"], { state: "failed", failureCode: "TIMEOUT" });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const [alice, rolledBack, kept, entries] = await store.transaction(async (tx) => [
      await tx.getAccount("acc-1"),
      await tx.getTask("t-rollback"),
      await tx.getTask("t-kept"),
      await tx.listLedger("acc-1"),
    ]);
    expect((alice as AccountRecord).credits).toBe(10);
    expect(rolledBack).toBeUndefined();
    expect(kept).toEqual(taskRecord("t-kept"));
    expect(entries).toEqual([]);
  });

  it("serialises concurrent transactions: no charge is lost", async () => {
    const store = current();
    await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        store.transaction(async (tx) => {
          const current = await tx.getAccount("acc-1");
          await new Promise((resolve) => setTimeout(resolve, 0));
          if (current && current.credits > 0)
            await tx.appendLedger(ledger(`c-${index}`, "acc-1", -1, "charge"));
        }),
      ),
    );
    const alice = await store.transaction((tx) => tx.getAccount("acc-1"));
    expect(alice?.credits).toBe(0);
    expect(await store.transaction((tx) => tx.listLedger("acc-1"))).toHaveLength(10);
  });
}
