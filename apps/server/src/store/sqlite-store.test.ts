import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue, StatementSync } from "node:sqlite";
import type { Store, TaskRecord } from "@genvideo/engine";
import { describeStoreContract, taskRecord } from "@genvideo/engine/testing";
import type { CompiledQuery, Kysely } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createStoreTransaction } from "./kysely-store.js";
import { createMigrator, pendingMigrations } from "./migrations.js";
import { CompiledQueries } from "./sql-executor.js";
import { openSqliteKysely, openSqliteStore } from "./sqlite-store.js";

const directory = mkdtempSync(join(tmpdir(), "genvideo-store-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;

describeStoreContract("SQLite (in memory)", async () => (await openSqliteStore(":memory:")).store);
describeStoreContract(
  "SQLite (file, WAL)",
  async () => (await openSqliteStore(join(directory, `c${counter++}.db`))).store,
);
// Every group run twice, the first rolled back, as when another process wrote in between.
describeStoreContract(
  "SQLite (rehearsing)",
  async () => (await openSqliteStore(":memory:", { rehearse: true })).store,
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

  it("keeps the WAL from growing under steady writes: it starts over between groups", async () => {
    const path = join(directory, "wal-upkeep.db");
    const walSize = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const written = async (store: Store) => {
      // Four hundred commits of a row with an 8 KiB name: about 7 MB through the WAL.
      for (let index = 0; index < 400; index++) {
        await store.transaction((tx) =>
          tx.insertAccount({ id: `a${index}`, name: `${index}`.padEnd(8192, "x"), credits: 0, createdAt: 0 }),
        );
      }
      return walSize();
    };
    // The background thread alone (checkpointing once, early) cannot restart the WAL under load.
    const alone = await openSqliteStore(path, {
      backgroundCheckpoints: true,
      checkpoints: { intervalMs: 60_000, upkeepMs: 60_000 },
    });
    const grown = await written(alone.store);
    await alone.store.close();
    rmSync(path);
    const kept = await openSqliteStore(path, {
      backgroundCheckpoints: true,
      checkpoints: { intervalMs: 60_000, upkeepMs: 0 },
    });
    const bounded = await written(kept.store);
    expect(grown).toBeGreaterThan(6_000_000);
    expect(bounded).toBeLessThan(grown / 10);
    expect(await kept.store.transaction((tx) => tx.listAccounts())).toHaveLength(400);
    await kept.store.close();
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

  it("reads an outbox with nothing due without waiting for the write lock another connection holds", async () => {
    const path = join(directory, "outbox-read.db");
    // A checkpoint truncating the WAL holds the write lock so; a writer waits up to busy_timeout for it.
    const { store } = await openSqliteStore(path, { busyTimeoutMs: 2_000 });
    const other = new DatabaseSync(path);
    other.exec("begin immediate");
    try {
      const startedAt = performance.now();
      const due = await store.transaction((tx) => tx.claimDueWebhookEvents("worker-a", 64, 1_000, 61_000));
      expect(due).toEqual([]);
      expect(performance.now() - startedAt).toBeLessThan(1_000);
    } finally {
      other.exec("rollback");
      other.close();
      await store.close();
    }
  });

  describe("transactions asked for together (group commit)", () => {
    const account = (id: string, credits = 0) => ({ id, name: id, credits, createdAt: 0 });

    it("commits each alone: one that fails leaves nothing and takes nothing from the others", async () => {
      const { store } = await openSqliteStore(join(directory, "group-failure.db"));
      const results = await Promise.allSettled(
        ["a", "b", "c", "d"].map((id) =>
          store.transaction(async (tx) => {
            await tx.insertAccount(account(id));
            if (id === "c") throw new Error("c refused");
            return id;
          }),
        ),
      );
      expect(results.map((result) => result.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
      ]);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: "c refused" });
      expect((await store.transaction((tx) => tx.listAccounts())).map((row) => row.id).sort()).toEqual([
        "a",
        "b",
        "d",
      ]);
      await store.close();
    });

    it("runs the group again, each member in a savepoint, only when one failed after writing", async () => {
      const { store } = await openSqliteStore(join(directory, "group-rerun.db"));
      const statements = recordStatements();
      const runs: string[] = [];
      const results = await Promise.allSettled([
        store.transaction(async (tx) => {
          runs.push("a");
          await tx.insertAccount(account("a"));
        }),
        store.transaction(async () => {
          runs.push("refused before writing");
          throw new Error("nothing written");
        }),
        store.transaction(async (tx) => {
          runs.push("b");
          await tx.insertAccount(account("b"));
        }),
      ]);
      expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      // Nothing to undo: one run, and no savepoint.
      expect(runs).toEqual(["a", "refused before writing", "b"]);
      expect(statements.taken().filter((sql) => /savepoint|rollback/.test(sql))).toEqual([]);

      runs.length = 0;
      const again = await Promise.allSettled([
        store.transaction(async (tx) => {
          runs.push("c");
          await tx.insertAccount(account("c"));
        }),
        store.transaction(async (tx) => {
          runs.push("d");
          await tx.insertAccount(account("d"));
          throw new Error("d refused after writing");
        }),
      ]);
      expect(again.map((result) => result.status)).toEqual(["fulfilled", "rejected"]);
      // Rolled back and run again in savepoints: c's account is written once, d's not at all.
      expect(runs).toEqual(["c", "d", "c", "d"]);
      expect(statements.taken().filter((sql) => /savepoint|rollback|release/.test(sql))).toEqual([
        "rollback",
        "savepoint member",
        "release member",
        "savepoint member",
        "rollback to member",
        "release member",
      ]);
      statements.stop();
      expect((await store.transaction((tx) => tx.listAccounts())).map((row) => row.id).sort()).toEqual([
        "a",
        "b",
        "c",
      ]);
      await store.close();
    });

    it("answers each only once the shared commit has made its writes visible to other connections", async () => {
      const path = join(directory, "group-durable.db");
      const { store } = await openSqliteStore(path);
      const other = new DatabaseSync(path);
      const seen = await Promise.all(
        ["a", "b", "c"].map((id) =>
          store
            .transaction((tx) => tx.insertAccount(account(id)))
            .then(() => other.prepare("select count(*) as n from accounts where id = ?").get(id)?.n),
        ),
      );
      expect(seen).toEqual([1, 1, 1]);
      other.close();
      await store.close();
    });

    it("lets later members read earlier members' writes: no update is lost", async () => {
      const { store } = await openSqliteStore(join(directory, "group-serial.db"));
      await store.transaction((tx) => tx.insertAccount(account("a", 100)));
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store.transaction((tx) =>
            tx.appendLedger({
              id: `c${index}`,
              accountId: "a",
              taskId: null,
              delta: -7,
              reason: "charge",
              createdAt: 0,
            }),
          ),
        ),
      );
      expect((await store.transaction((tx) => tx.getAccount("a")))?.credits).toBe(30);
      await store.close();
    });

    it("runs the whole group again when another process wrote before the group's first write", async () => {
      const path = join(directory, "group-retry.db");
      const { store } = await openSqliteStore(path);
      await store.transaction((tx) => tx.insertAccount(account("a", 10)));
      const other = new DatabaseSync(path);
      other.exec("PRAGMA busy_timeout = 5000");
      const runs: string[] = [];
      const [reader, writer] = await Promise.all([
        store.transaction(async (tx) => {
          runs.push("reader");
          const credits = (await tx.getAccount("a"))?.credits;
          // The first time round, the CLI (another connection) commits right after this read.
          if (runs.length === 1) other.exec("update accounts set credits = credits + 5 where id = 'a'");
          return credits;
        }),
        store.transaction(async (tx) => {
          runs.push("writer");
          await tx.insertAccount(account("b"));
          return (await tx.getAccount("a"))?.credits;
        }),
      ]);
      other.close();
      expect(runs).toEqual(["reader", "writer", "reader", "writer"]);
      // The second run saw the other process's write, in both members.
      expect([reader, writer]).toEqual([15, 15]);
      await store.close();
    });
  });

  describe("a task's request", () => {
    const request = { prompt: "a calm sea", model_type: "gen-3-fast", aspect_ratio: "16:9" } as const;
    const task = (id: string, overrides: Partial<TaskRecord> = {}) =>
      taskRecord(id, { accountId: "a", request, ...overrides });

    // Over INLINE_REQUEST_BYTES of JSON, as any request with an image is.
    const large = { ...request, prompt: "a calm sea ".repeat(300) };

    it("keeps a small request in the task row and a large one apart", async () => {
      const path = join(directory, "inline-request.db");
      const { store } = await openSqliteStore(path);
      await store.transaction(async (tx) => {
        await tx.insertAccount({ id: "a", name: "a", credits: 0, createdAt: 0 });
        await tx.insertTask(task("small"));
        await tx.insertTask(task("large", { request: large }));
      });
      const database = new DatabaseSync(path);
      const apart = database.prepare("select task_id from task_requests").all();
      const inline = database.prepare("select id from tasks where request is not null").all();
      database.close();
      expect(apart.map((row) => row.task_id)).toEqual(["large"]);
      expect(inline.map((row) => row.id)).toEqual(["small"]);
      expect((await store.transaction((tx) => tx.getTask("small")))?.request).toEqual(request);
      expect((await store.transaction((tx) => tx.getTask("large")))?.request).toEqual(large);
      await store.close();
    });

    it("reads a large request only when used: status reads and the worker's lists never copy it", async () => {
      const path = join(directory, "lazy-request.db");
      const { store } = await openSqliteStore(path);
      await store.transaction(async (tx) => {
        await tx.insertAccount({ id: "a", name: "a", credits: 0, createdAt: 0 });
        await tx.insertTask(
          task("t1", { request: large, state: "processing", videoKey: "t1.mp4", finishAt: 5 }),
        );
      });
      // Spoil the stored request behind the store's back: only a read of `request` can notice.
      const other = new DatabaseSync(path);
      other.exec("update task_requests set request = 'not json' where task_id = 't1'");
      const read = await store.transaction((tx) => tx.getTask("t1"));
      const due = await store.transaction((tx) => tx.listDueCompletions(10, 10));
      expect(read).toMatchObject({ id: "t1", state: "processing", videoKey: "t1.mp4" });
      expect(due.map((row) => row.id)).toEqual(["t1"]);
      expect(() => read?.request).toThrow(SyntaxError);
      // Restored, it is read (once) on first use.
      other.exec(`update task_requests set request = '${JSON.stringify(large)}' where task_id = 't1'`);
      other.close();
      expect(read?.request).toEqual(large);
      expect(due[0]?.request).toEqual(large);
      await store.close();
    });

    it("moves the requests of a database made before 0002 out of the task rows", async () => {
      const path = join(directory, "migrate-0002.db");
      const old = openSqliteKysely(path);
      await createMigrator(old as Kysely<unknown>).migrateTo("0001_initial");
      const database = new DatabaseSync(path);
      database.exec(`
        insert into accounts (id, name, credits, created_at) values ('a', 'a', 0, 0);
        insert into tasks (id, account_id, state, request, model_type, aspect_ratio, scenario, cost,
          progress, created_at, updated_at, deadline_at)
        values ('t1', 'a', 'queued', '${JSON.stringify(request)}', 'gen-3-fast', '16:9', '{}', 1, 0, 0, 0, 600000);
      `);
      database.close();
      await old.destroy();
      const { store } = await openSqliteStore(path);
      expect((await store.transaction((tx) => tx.getTask("t1")))?.request).toEqual(request);
      await store.close();
      const migrated = new DatabaseSync(path);
      const columns = migrated.prepare("select name from pragma_table_info('tasks')").all();
      const apart = migrated
        .prepare(
          "select task_id, (select request from tasks where id = task_id) as inline from task_requests",
        )
        .all();
      migrated.close();
      // The request column is back (0004), after every column a status read needs, and empty for
      // rows from before it; only the trace context (0011, small, read with the task) follows it.
      expect(columns.map((row) => row.name).slice(-2)).toEqual(["request", "trace_parent"]);
      expect(apart).toEqual([{ task_id: "t1", inline: null }]);
    });
  });

  it("runs the worker's claim and sweeps on their partial indexes, not over every unfinished task", async () => {
    const path = join(directory, "plans.db");
    const { db, store } = await openSqliteStore(path);
    await store.close();
    const database = new DatabaseSync(path);
    const plans: string[] = [];
    const explain = async (query: CompiledQuery) => {
      const rows = database
        .prepare(`explain query plan ${query.sql}`)
        .all(...(query.parameters as SQLInputValue[]));
      plans.push(rows.map((row) => row.detail).join("; "));
      return [];
    };
    const tx = createStoreTransaction({
      db,
      exec: {
        rows: explain,
        first: async () => undefined,
        changes: async (query) => (await explain(query)).length,
      },
      compiled: new CompiledQueries(),
      rowLocks: false,
      loadRequest: () => undefined,
    });
    await tx.claimQueuedTasks("w", 10, 0, 1);
    await tx.listOverdueTasks(0, 10);
    await tx.listDueCompletions(0, 10);
    await tx.releaseExpiredLeases(0, 10);
    database.close();
    expect(plans).toEqual([
      expect.stringMatching(/USING (COVERING )?INDEX tasks_queued_created(?!.*TEMP B-TREE)/),
      expect.stringContaining("USING INDEX tasks_unfinished_deadline"),
      expect.stringContaining("USING INDEX tasks_processing_finish"),
      expect.stringContaining("USING INDEX tasks_processing_lease"),
    ]);
  });

  it("uses WAL on a file, a 64 MiB page cache, memory-mapped reads and a WAL cut back to 64 MiB", async () => {
    const { db, store } = await openSqliteStore(join(directory, "wal.db"));
    const pragma = async (name: string) => {
      const { rows } = await db.executeQuery<Record<string, unknown>>({
        sql: `pragma ${name}`,
        parameters: [],
        query: { kind: "RawNode" } as never,
        queryId: { queryId: "x" },
      });
      return rows[0]?.[name];
    };
    expect(await pragma("journal_mode")).toBe("wal");
    expect(await pragma("cache_size")).toBe(-65536);
    expect(await pragma("mmap_size")).toBe(268435456);
    expect(await pragma("journal_size_limit")).toBe(67108864);
    await store.close();
  });
});

/** Records the SQL of every statement node:sqlite runs from now on, until `stop()`. */
function recordStatements(): { taken(): string[]; stop(): void } {
  const prototype = StatementSync.prototype as unknown as Record<string, (...values: unknown[]) => unknown>;
  const methods = ["run", "get", "all", "iterate"] as const;
  const originals = methods.map((method) => [method, prototype[method]!] as const);
  let seen: string[] = [];
  for (const [method, original] of originals)
    prototype[method] = function (this: StatementSync, ...values: unknown[]) {
      seen.push(this.sourceSQL);
      return original.apply(this, values);
    };
  return {
    taken() {
      const taken = seen;
      seen = [];
      return taken;
    },
    stop() {
      for (const [method, original] of originals) prototype[method] = original;
    },
  };
}
