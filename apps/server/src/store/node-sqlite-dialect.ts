import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
} from "kysely";
import type { SqliteConnection, SqliteValue } from "./sqlite-connection.js";

/**
 * Kysely on node:sqlite. Kysely ships a SQLite dialect written against
 * better-sqlite3, whose API differs (parameters spread, no `reader` flag); this
 * keeps Kysely's compiler and introspector and brings its own driver, which
 * shares the connection and its lock with the store's direct transactions.
 */
export class NodeSqliteDialect extends SqliteDialect {
  readonly #connection: SqliteConnection;

  constructor(connection: SqliteConnection) {
    super({ database: { close: () => undefined, prepare: () => undefined as never } });
    this.#connection = connection;
  }

  override createDriver(): Driver {
    return new NodeSqliteDriver(this.#connection);
  }

  override createAdapter(): SqliteAdapter {
    return new NodeSqliteAdapter();
  }
}

class NodeSqliteAdapter extends SqliteAdapter {
  /** SQLite runs DDL inside transactions: each migration commits whole or not at all. */
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  /** The driver serialises through the connection's own lock; Kysely need not add another. */
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

class NodeSqliteDriver implements Driver {
  readonly #connection: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#connection = connection;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new LockedConnection(this.#connection, await this.#connection.lock.acquire());
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as LockedConnection).release();
  }

  /**
   * `BEGIN IMMEDIATE` takes the write lock up front: a deferred transaction that
   * reads and then writes fails with SQLITE_BUSY (which busy_timeout cannot
   * retry) when another process, such as the CLI, wrote in between.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy(): Promise<void> {
    this.#connection.close();
  }
}

class LockedConnection implements DatabaseConnection {
  readonly #connection: SqliteConnection;
  readonly release: () => void;

  constructor(connection: SqliteConnection, release: () => void) {
    this.#connection = connection;
    this.release = release;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return executeOnSqlite<R>(this.#connection, compiledQuery);
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query)) throw new Error("only SELECT queries can be streamed");
    const { statement, row } = this.#connection.statement(compiledQuery.sql);
    for (const values of statement.iterate(...(compiledQuery.parameters as SqliteValue[])))
      yield { rows: [row(values) as R] };
  }
}

/** The first row of a query (`get`: no array, and SQLite stops after one row). */
export function firstOnSqlite<R>(connection: SqliteConnection, query: CompiledQuery): R | undefined {
  const { statement, row } = connection.statement(query.sql);
  const values = statement.get(...(query.parameters as SqliteValue[]));
  return values === undefined ? undefined : (row(values) as R);
}

/** Runs compiled SQL: rows when the statement has result columns, the change count otherwise. */
export function executeOnSqlite<R>(connection: SqliteConnection, query: CompiledQuery): QueryResult<R> {
  const { statement, reader, row } = connection.statement(query.sql);
  const parameters = query.parameters as SqliteValue[];
  if (reader) return { rows: statement.all(...parameters).map(row) as R[] };
  const { changes, lastInsertRowid } = statement.run(...parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}
