import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
