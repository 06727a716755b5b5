import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { pendingMigrations } from "./migrations.js";
import { openSqliteStore } from "./sqlite-store.js";
import { describeStoreContract } from "./store-contract.js";

const directory = mkdtempSync(join(tmpdir(), "genvideo-store-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;

describeStoreContract("SQLite (in memory)", async () => (await openSqliteStore(":memory:")).store);
describeStoreContract(
  "SQLite (file, WAL)",
  async () => (await openSqliteStore(join(directory, `c${counter++}.db`))).store,
);

describe("SQLite store", () => {
  it("migrates once and reports nothing pending", async () => {
    const path = join(directory, "migrate.db");
    const first = await openSqliteStore(path);
    expect(await pendingMigrations(first.db as never)).toEqual([]);
    await first.store.close();
    const second = await openSqliteStore(path);
    expect(await pendingMigrations(second.db as never)).toEqual([]);
    await second.store.close();
  });

  it("refuses a second refund of one task, whatever the engine does", async () => {
    const { store } = await openSqliteStore(":memory:");
    await store.transaction((tx) => tx.insertAccount({ id: "a", name: "a", credits: 0, createdAt: 0 }));
    const refund = {
      id: "r1",
      accountId: "a",
      taskId: "t",
      delta: 1,
      reason: "refund" as const,
      createdAt: 0,
    };
    await store.transaction((tx) => tx.appendLedger(refund));
    await expect(store.transaction((tx) => tx.appendLedger({ ...refund, id: "r2" }))).rejects.toThrow();
    expect((await store.transaction((tx) => tx.getAccount("a")))?.credits).toBe(1);
    await store.close();
  });

  it("checkpoints in the background and leaves an empty WAL when closed", async () => {
    const path = join(directory, "checkpoints.db");
    const { store } = await openSqliteStore(path, { backgroundCheckpoints: true });
    for (let index = 0; index < 200; index++) {
      await store.transaction((tx) =>
        tx.insertAccount({ id: `a${index}`, name: `n${index}`, credits: 0, createdAt: 0 }),
      );
    }
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    await store.close();
    expect(statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
    const reopened = await openSqliteStore(path);
    expect(await reopened.store.transaction((tx) => tx.listAccounts())).toHaveLength(200);
    await reopened.store.close();
  });

  it("cuts the WAL back to nothing once it grows past its limit", async () => {
    const path = join(directory, "wal-cap.db");
    const { store } = await openSqliteStore(path, {
      backgroundCheckpoints: true,
      checkpoints: { intervalMs: 20, maxWalBytes: 1 },
    });
    for (let index = 0; index < 50; index++) {
      await store.transaction((tx) =>
        tx.insertAccount({ id: `a${index}`, name: `n${index}`, credits: 0, createdAt: 0 }),
      );
    }
    // PASSIVE alone leaves the file at its size; past the limit it is truncated.
    const deadline = Date.now() + 5000;
    while (statSync(`${path}-wal`).size > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statSync(`${path}-wal`).size).toBe(0);
    await store.close();
  });

  it("starts over when another process writes between a transaction's read and its first write", async () => {
    const path = join(directory, "two-processes.db");
    const { store } = await openSqliteStore(path);
    await store.transaction((tx) => tx.insertAccount({ id: "a", name: "a", credits: 10, createdAt: 0 }));
    // Another connection to the file stands in for the CLI, a separate process.
    const other = new DatabaseSync(path);
    other.exec("PRAGMA busy_timeout = 5000");
    let attempts = 0;
    await store.transaction(async (tx) => {
      attempts++;
      const before = await tx.getAccount("a");
      if (attempts === 1) other.exec("update accounts set credits = credits + 5 where id = 'a'");
      await tx.appendLedger({
        id: `c${attempts}`,
        accountId: "a",
        taskId: null,
        delta: -(before?.credits ?? 0),
        reason: "charge",
        createdAt: 0,
      });
    });
    other.close();
    expect(attempts).toBe(2);
    // The retry saw the other process's +5: the charge took exactly what was there.
    expect((await store.transaction((tx) => tx.getAccount("a")))?.credits).toBe(0);
    expect((await store.transaction((tx) => tx.listLedger("a"))).map((entry) => entry.delta)).toEqual([-15]);
    await store.close();
  });

  it("uses WAL on a file", async () => {
    const { db, store } = await openSqliteStore(join(directory, "wal.db"));
    const { rows } = await db.executeQuery<{ journal_mode: string }>({
      sql: "pragma journal_mode",
      parameters: [],
      query: { kind: "RawNode" } as never,
      queryId: { queryId: "x" },
    });
    expect(rows[0]?.journal_mode).toBe("wal");
    await store.close();
  });
});
