/**
 * The SQLite store: one node:sqlite connection, Kysely to compile the shared
 * queries, and transactions run directly (BEGIN IMMEDIATE ... COMMIT under the
 * connection's lock) because Kysely's transaction layer costs several times
 * the queries on this hot path.
 */
import type { Store } from "@genvideo/engine";
import { Kysely } from "kysely";
import { createStoreTransaction } from "./kysely-store.js";
import { migrateToLatest } from "./migrations.js";
import { executeOnSqlite, NodeSqliteDialect } from "./node-sqlite-dialect.js";
import { CompiledQueries, type SqlExecutor } from "./sql-executor.js";
import { SqliteConnection } from "./sqlite-connection.js";
import type { Database } from "./tables.js";

export interface SqliteStoreHandle {
  store: Store;
  /** Kysely on the same connection, for what is not the engine's: migrations, host state. */
  db: Kysely<Database>;
}

export interface OpenSqliteOptions {
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
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
  return { db, store: createSqliteStore(connection, db) };
}

/** Kysely on a SQLite file without migrating or a store (readiness checks, tools). */
export function openSqliteKysely(path: string, options: OpenSqliteOptions = {}): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new NodeSqliteDialect(new SqliteConnection(path, options.busyTimeoutMs)),
  });
}

export function createSqliteStore(connection: SqliteConnection, db: Kysely<Database>): Store {
  const compiled = new CompiledQueries();
  let closed = false;
  const begin = () => connection.statement("begin immediate").statement.run();
  const commit = () => connection.statement("commit").statement.run();
  const rollback = () => {
    if (connection.database.isTransaction) connection.statement("rollback").statement.run();
  };

  return {
    async transaction(work) {
      if (closed) throw new Error("the store is closed");
      const release = await connection.lock.acquire();
      let open = true;
      // A query issued after its transaction ended would run outside any transaction: refuse it.
      const exec: SqlExecutor = {
        async rows(query) {
          if (!open) throw new Error("transaction already ended: a store call escaped its transaction");
          return executeOnSqlite<never>(connection, query).rows;
        },
        async changes(query) {
          if (!open) throw new Error("transaction already ended: a store call escaped its transaction");
          return Number(executeOnSqlite(connection, query).numAffectedRows ?? 0n);
        },
      };
      try {
        begin();
        try {
          const result = await work(createStoreTransaction({ db, exec, compiled, rowLocks: false }));
          commit();
          return result;
        } catch (error) {
          rollback();
          throw error;
        }
      } finally {
        open = false;
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
    },
  };
}
