/**
 * The process's one connection to a SQLite file: node:sqlite is synchronous,
 * so a second connection in the same process would add locking, not speed.
 * Prepared statements are kept by SQL text: preparing costs about as much as
 * running a small query.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { ConnectionLock } from "./connection-lock.js";

const STATEMENT_CACHE_SIZE = 500;

export type SqliteValue = null | number | bigint | string | NodeJS.ArrayBufferView;

/** A prepared statement and whether it returns rows (asked once: `columns()` allocates). */
export interface PreparedStatement {
  statement: StatementSync;
  reader: boolean;
}

export class SqliteConnection {
  readonly database: DatabaseSync;
  /** Taken by every user of the connection for the length of a statement or a transaction. */
  readonly lock = new ConnectionLock();
  readonly #statements = new Map<string, PreparedStatement>();

  constructor(path: string, busyTimeoutMs = 5000) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.database = new DatabaseSync(path);
    // WAL lets the CLI read and write while the server runs; NORMAL survives a
    // process crash (only a power loss can drop the last commits).
    this.database.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)};
      PRAGMA foreign_keys = ON;
    `);
  }

  statement(sql: string): PreparedStatement {
    let prepared = this.#statements.get(sql);
    if (prepared) return prepared;
    const statement = this.database.prepare(sql);
    prepared = { statement, reader: statement.columns().length > 0 };
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }

  close(): void {
    this.#statements.clear();
    if (this.database.isOpen) this.database.close();
  }
}
