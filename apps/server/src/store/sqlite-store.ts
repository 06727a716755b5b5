/** The SQLite part of the store: opening the file with the settings a server needs. */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Store } from "@genvideo/engine";
import { Kysely } from "kysely";
import { createKyselyStore } from "./kysely-store.js";
import { migrateToLatest } from "./migrations.js";
import { NodeSqliteDialect } from "./node-sqlite-dialect.js";
import type { Database } from "./tables.js";

export interface SqliteStoreHandle {
  store: Store;
  db: Kysely<Database>;
}

export interface OpenSqliteOptions {
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating when needed) a SQLite database and applies the migrations.
 * `:memory:` gives a private database, for tests.
 */
export async function openSqliteStore(
  path: string,
  options: OpenSqliteOptions = {},
): Promise<SqliteStoreHandle> {
  const db = openSqliteKysely(path, options);
  try {
    await migrateToLatest(db as Kysely<unknown>);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, store: createKyselyStore(db, { rowLocks: false }) };
}

/** The Kysely instance alone, without migrating (for readiness checks and tools). */
export function openSqliteKysely(path: string, options: OpenSqliteOptions = {}): Kysely<Database> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  // WAL lets the CLI read while the server writes; NORMAL is durable across a
  // process crash (only a power loss can drop the last commits).
  database.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)};
    PRAGMA foreign_keys = ON;
  `);
  return new Kysely<Database>({ dialect: new NodeSqliteDialect(database) });
}
