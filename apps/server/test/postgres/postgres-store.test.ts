// The PostgreSQL store against the same contract as SQLite and the memory store, unchanged,
// plus what only PostgreSQL shows: processes racing on one database.
import { describeStoreContract, taskRecord } from "@genvideo/engine/testing";
import pg from "pg";
import { expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { describePostgres, freshDatabase, postgresUrl } from "../support/postgres.js";

if (postgresUrl() !== null) {
  describeStoreContract("PostgreSQL", async () => (await openPostgresStore(await freshDatabase())).store);
}

describePostgres("PostgreSQL store", () => {
  it("refuses a second refund of one task and a second charge, whatever the engine does", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      await store.transaction(async (tx) => {
        await tx.insertAccount({ id: "acc", name: "a", credits: 10, createdAt: 1 });
        await tx.insertTask(taskRecord("t1", { accountId: "acc" }));
      });
      const entry = (id: string, reason: "charge" | "refund", delta: number) => ({
        id,
        accountId: "acc",
        taskId: "t1",
        delta,
        reason,
        createdAt: 2,
      });
      await store.transaction((tx) => tx.appendLedger(entry("c1", "charge", -2)));
      await expect(store.transaction((tx) => tx.appendLedger(entry("c2", "charge", -2)))).rejects.toThrow(
        /unique/,
      );
      await store.transaction((tx) => tx.appendLedger(entry("r1", "refund", 2)));
      await expect(store.transaction((tx) => tx.appendLedger(entry("r2", "refund", 2)))).rejects.toThrow(
        /unique/,
      );
      const account = await store.transaction((tx) => tx.getAccount("acc"));
      expect(account?.credits).toBe(10);
    } finally {
      await store.close();
    }
  });

  it("gives each queued task to exactly one of many claimers", async () => {
    const url = await freshDatabase();
    const handles = await Promise.all([1, 2, 3, 4].map(() => openPostgresStore(url, { poolSize: 4 })));
    try {
      await handles[0]!.store.transaction(async (tx) => {
        await tx.insertAccount({ id: "acc", name: "a", credits: 0, createdAt: 1 });
        for (let i = 0; i < 200; i++)
          await tx.insertTask(
            taskRecord(`t${String(i).padStart(3, "0")}`, { accountId: "acc", createdAt: i }),
          );
      });
      const claims = await Promise.all(
        handles.flatMap((handle, h) =>
          [0, 1, 2, 3].map(async (c) => {
            const ids: string[] = [];
            for (;;) {
              const batch = await handle.store.transaction((tx) =>
                tx.claimQueuedTasks(`w${h}.${c}`, 7, 1000, 2000),
              );
              if (batch.length === 0) return ids;
              ids.push(...batch.map((task) => task.id));
            }
          }),
        ),
      );
      const all = claims.flat();
      expect(all.length).toBe(200);
      expect(new Set(all).size).toBe(200);
    } finally {
      await Promise.all(handles.map((handle) => handle.store.close()));
    }
  });

  it("never releases a lease its owner is renewing: the release skips the row, and finds it live after", async () => {
    const url = await freshDatabase();
    const [owner, other] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    try {
      const now = 1_000_000;
      await owner!.store.transaction(async (tx) => {
        await tx.insertAccount({ id: "acc", name: "a", credits: 0, createdAt: 1 });
        await tx.insertTask(
          taskRecord("t1", {
            accountId: "acc",
            state: "processing",
            leaseOwner: "w",
            leaseExpiresAt: now - 1,
          }),
        );
      });
      let commitRenewal = () => {};
      const renewed = new Promise<void>((resolve) => {
        commitRenewal = resolve;
      });
      let renewing = () => {};
      const locked = new Promise<void>((resolve) => {
        renewing = resolve;
      });
      // The owner wakes past its lease and renews; its transaction is still open when another worker sweeps.
      const renewal = owner!.store.transaction(async (tx) => {
        await tx.transitionTask("t1", ["processing"], { leaseExpiresAt: now + 60_000 }, "w");
        renewing();
        await renewed;
      });
      await locked;
      expect(await other!.store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(0);
      commitRenewal();
      await renewal;
      expect(await other!.store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(0);
      expect(await other!.store.transaction((tx) => tx.getTask("t1"))).toMatchObject({
        state: "processing",
        leaseOwner: "w",
        leaseExpiresAt: now + 60_000,
      });
    } finally {
      await Promise.all([owner!.store.close(), other!.store.close()]);
    }
  });

  it("runs a single-write transaction in autocommit and refuses a second write in it", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      await store.transaction(async (tx) => {
        await tx.insertAccount({ id: "acc", name: "a", credits: 0, createdAt: 1 });
        await tx.insertTask(taskRecord("t1", { accountId: "acc", state: "processing", leaseOwner: "w" }));
      });
      const won = await store.transaction(
        (tx) =>
          tx.transitionTasks([{ id: "t1", videoKey: "t1.mp4" }], ["processing"], { state: "completed" }, "w"),
        { singleWrite: true },
      );
      expect(won).toEqual(["t1"]);
      expect(await store.transaction((tx) => tx.getTask("t1"))).toMatchObject({
        state: "completed",
        videoKey: "t1.mp4",
      });
      await expect(
        store.transaction(
          async (tx) => {
            await tx.getTask("t1");
            await tx.transitionTask("t1", ["completed"], { progress: 100 });
            await tx.getTask("t1");
            await tx.transitionTask("t1", ["completed"], { progress: 99 });
          },
          { singleWrite: true },
        ),
      ).rejects.toThrow(/second write/);
      // The first write committed on its own; the second never ran.
      expect(await store.transaction((tx) => tx.getTask("t1"))).toMatchObject({ progress: 100 });
    } finally {
      await store.close();
    }
  });

  it("survives PostgreSQL ending a session held in a transaction: the transaction fails, the process goes on", async () => {
    // What a process frozen mid-transaction (SIGSTOP, a paused VM) finds when it wakes: PostgreSQL
    // ended its session after idle_in_transaction_session_timeout, releasing the row locks.
    const url = await freshDatabase();
    // Migrated first by a store without the short timeout, which a busy machine could trip mid-migration.
    await (await openPostgresStore(url)).store.close();
    const { store } = await openPostgresStore(url, {
      applicationName: "frozen",
      idleInTransactionTimeoutMs: 100,
      migrate: false,
    });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const attempt = store.transaction(async (tx) => {
        await tx.insertAccount({ id: "acc", name: "a", credits: 10, createdAt: 1 });
        // Stand still, as a frozen process would, until PostgreSQL has ended the session...
        for (;;) {
          const { rows } = await admin.query(
            "select 1 from pg_stat_activity where application_name = 'frozen'",
          );
          if (rows.length === 0) break;
        }
        // ...and until its last words have reached this process (one turn of the event loop).
        await new Promise((resolve) => setImmediate(resolve));
        return tx.getAccount("acc");
      });
      await expect(attempt).rejects.toThrow();
      // Nothing of it was kept, and the store works on a fresh connection.
      expect(await store.transaction((tx) => tx.getAccount("acc"))).toBeUndefined();
      await store.transaction((tx) => tx.insertAccount({ id: "acc", name: "a", credits: 10, createdAt: 1 }));
      expect((await store.transaction((tx) => tx.getAccount("acc")))?.credits).toBe(10);
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
