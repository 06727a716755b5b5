/**
 * The process's one connection to a SQLite file: node:sqlite is synchronous,
 * so a second connection in the same process would add locking, not speed.
 * Prepared statements are kept by SQL text: preparing costs about as much as
 * running a small query.
 */
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { ConnectionLock } from "./connection-lock.js";
import { makePrivateDirectory, makePrivateFile } from "./private-files.js";

const STATEMENT_CACHE_SIZE = 500;

export type SqliteValue = null | number | bigint | string | NodeJS.ArrayBufferView;

/** A prepared statement and whether it is read to its end for rows (asked once: `columns()` allocates). */
export interface PreparedStatement {
  statement: StatementSync;
  reader: boolean;
  /** One result row as an object keyed by column name (the statement returns arrays when it can). */
  row: (values: unknown) => Record<string, unknown>;
}

export class SqliteConnection {
  readonly database: DatabaseSync;
  /** Taken by every user of the connection for the length of a statement or a transaction. */
  readonly lock = new ConnectionLock();
  readonly #statements = new Map<string, PreparedStatement>();

  constructor(path: string, busyTimeoutMs = 5000) {
    if (path !== ":memory:") {
      makePrivateDirectory(dirname(path));
      makePrivateFile(path);
    }
    this.database = new DatabaseSync(path);
    // WAL lets the CLI read and write while the server runs; NORMAL survives a
    // process crash (only a power loss can drop the last commits). A WAL that
    // starts over is cut back to 64 MiB at most. The page cache (64 MiB, the
    // default is 2 MiB) and memory-mapped reads keep lookups among a hundred
    // thousand tasks from going to the kernel for every page; both are part of
    // the process's memory ceiling (docs/operating.md, "Memory").
    // auto_vacuum takes effect on a new database only (before its first table):
    // space that history retention frees is then given back to the file system
    // by incremental vacuums (docs/operating.md, "History retention").
    // The busy timeout comes first: the pragmas after it take the database's
    // locks, and without it a CLI opening the file while the server writes
    // failed at once with "database is locked".
    this.database.exec(`
      PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)};
      PRAGMA auto_vacuum = INCREMENTAL;
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA foreign_keys = ON;
      PRAGMA journal_size_limit = 67108864;
      PRAGMA cache_size = -65536;
      PRAGMA mmap_size = 268435456;
    `);
  }

  statement(sql: string): PreparedStatement {
    let prepared = this.#statements.get(sql);
    if (prepared) return prepared;
    const statement = this.database.prepare(sql);
    const columns = statement.columns().map((column) => column.name);
    // A pragma is stepped to its end as a reader is: `run()` steps once, and
    // `PRAGMA incremental_vacuum(N)` frees one page per step (it gave back 1
    // page of N).
    const reader = columns.length > 0 || /^\s*pragma\b/i.test(sql);
    prepared = { statement, reader, row: rowBuilder(statement, columns) };
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

const asObject = (values: unknown) => values as Record<string, unknown>;

/**
 * node:sqlite names every column of every row in C++, which cost as much as
 * the query itself on a task row (22 columns). As arrays the rows come back
 * in half the time, and this builds the objects with one literal of fixed
 * shape per statement, which later property reads also prefer.
 */
function rowBuilder(statement: StatementSync, columns: string[]): PreparedStatement["row"] {
  const arrays = statement as StatementSync & { setReturnArrays?: (enabled: boolean) => void };
  // setReturnArrays came with Node 24; older versions keep the objects node:sqlite makes.
  // "__proto__" in a literal would set the prototype instead of a property.
  if (columns.length === 0 || columns.includes("__proto__") || typeof arrays.setReturnArrays !== "function")
    return asObject;
  arrays.setReturnArrays(true);
  const fields = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  // Column names come from the database's own schema, quoted as JSON strings.
  return new Function("values", `return { ${fields.join(", ")} };`) as PreparedStatement["row"];
}
