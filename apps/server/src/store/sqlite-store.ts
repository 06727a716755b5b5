/**
 * The SQLite store: one node:sqlite connection, Kysely to compile the shared
 * queries, and transactions run directly (BEGIN IMMEDIATE ... COMMIT under the
 * connection's lock) because Kysely's transaction layer costs several times
 * the queries on this hot path.
 */
import type { Store, StoreTransaction } from "@genvideo/engine";
import { type CompiledQuery, Kysely, type QueryResult, SelectQueryNode } from "kysely";
import { createStoreTransaction } from "./kysely-store.js";
import { migrateToLatest } from "./migrations.js";
import { executeOnSqlite, firstOnSqlite, NodeSqliteDialect } from "./node-sqlite-dialect.js";
import { CompiledQueries, type SqlExecutor } from "./sql-executor.js";
import { SqliteConnection } from "./sqlite-connection.js";
import type { Database } from "./tables.js";
import { startWalCheckpointer } from "./wal-checkpointer.js";

export interface SqliteStoreHandle {
  store: Store;
  /** Kysely on the same connection, for what is not the engine's: migrations, host state. */
  db: Kysely<Database>;
}

export interface OpenSqliteOptions {
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL from a worker thread instead of inside commits (see
   * wal-checkpointer.ts): for the long-running server, not one-shot commands.
   */
  backgroundCheckpoints?: boolean;
  /** Where a failed background checkpoint is reported. */
  onCheckpointError?: (message: string) => void;
  /** Background checkpoints: how often (ms, default 1000) and past which WAL size writers wait for one (default 64 MiB). */
  checkpoints?: { intervalMs?: number; maxWalBytes?: number };
}

/** Opens (creating when needed) a SQLite database and applies the migrations. `:memory:` is private, for tests. */
export async function openSqliteStore(
  path: string,
  options: OpenSqliteOptions = {},
): Promise<SqliteStoreHandle> {
  const connection = new SqliteConnection(path, options.busyTimeoutMs);
  const db = new Kysely<Database>({ dialect: new NodeSqliteDialect(connection) });
  try {
    await migrateToLatest(db as Kysely<unknown>);
  } catch (error) {
    connection.close();
    throw error;
  }
  if (!options.backgroundCheckpoints || path === ":memory:")
    return { db, store: createSqliteStore(connection, db) };
  connection.database.exec("PRAGMA wal_autocheckpoint = 0");
  const checkpointer = startWalCheckpointer(path, {
    ...options.checkpoints,
    onError: options.onCheckpointError,
  });
  return { db, store: createSqliteStore(connection, db, () => checkpointer.stop()) };
}

/** Kysely on a SQLite file without migrating or a store (readiness checks, tools). */
export function openSqliteKysely(path: string, options: OpenSqliteOptions = {}): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new NodeSqliteDialect(new SqliteConnection(path, options.busyTimeoutMs)),
  });
}

/**
 * Transactions start deferred and take the write lock at their first write,
 * so the many read-only ones (auth, status reads) skip the cost of the lock.
 * Within this process the connection lock already serialises transactions;
 * only another process (the CLI) can commit between a transaction's reads and
 * its first write, and SQLite then refuses the upgrade (SQLITE_BUSY). That
 * transaction is rolled back and run again from the start with
 * BEGIN IMMEDIATE, which waits for the lock instead and cannot be refused.
 */
export function createSqliteStore(
  connection: SqliteConnection,
  db: Kysely<Database>,
  afterClose?: () => Promise<void>,
): Store {
  const compiled = new CompiledQueries();
  let closed = false;
  const run = (sql: string) => connection.statement(sql).statement.run();
  const rollback = () => {
    if (connection.database.isTransaction) run("rollback");
  };

  async function attempt<T>(work: (tx: StoreTransaction) => Promise<T>, immediate: boolean): Promise<T> {
    let open = true;
    let wrote = immediate;
    const execute = <R>(query: CompiledQuery, runQuery: typeof executeOnSqlite | typeof firstOnSqlite) => {
      // A query issued after its transaction ended would run outside any transaction: refuse it.
      if (!open) throw new Error("transaction already ended: a store call escaped its transaction");
      if (wrote || SelectQueryNode.is(query.query)) return runQuery<R>(connection, query);
      wrote = true;
      try {
        return runQuery<R>(connection, query);
      } catch (error) {
        if (isBusy(error)) throw new WriteLockRefused();
        throw error;
      }
    };
    const exec: SqlExecutor = {
      rows: async <R>(query: CompiledQuery) => (execute<R>(query, executeOnSqlite) as QueryResult<R>).rows,
      first: async <R>(query: CompiledQuery) => execute<R>(query, firstOnSqlite) as R | undefined,
      changes: async (query) =>
        Number((execute(query, executeOnSqlite) as QueryResult<unknown>).numAffectedRows ?? 0n),
    };
    run(immediate ? "begin immediate" : "begin");
    try {
      const result = await work(createStoreTransaction({ db, exec, compiled, rowLocks: false }));
      run("commit");
      return result;
    } catch (error) {
      rollback();
      throw error;
    } finally {
      open = false;
    }
  }

  return {
    async transaction(work) {
      if (closed) throw new Error("the store is closed");
      const release = await connection.lock.acquire();
      try {
        try {
          return await attempt(work, false);
        } catch (error) {
          if (!(error instanceof WriteLockRefused)) throw error;
          return await attempt(work, true);
        }
      } finally {
        release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // Waits for the transaction in flight, then closes for everyone.
      const release = await connection.lock.acquire();
      release();
      connection.close();
      await afterClose?.();
    },
  };
}

/** Another process wrote since this transaction's first read: it must start over. */
class WriteLockRefused extends Error {
  override name = "WriteLockRefused";
}

function isBusy(error: unknown): boolean {
  // SQLITE_BUSY is 5; its extended codes (BUSY_SNAPSHOT 517, ...) keep 5 in the low byte.
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === "number" && (code & 0xff) === 5;
}
