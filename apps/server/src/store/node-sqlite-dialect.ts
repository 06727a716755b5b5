import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from "kysely";

/**
 * Kysely ships a SQLite dialect written against better-sqlite3's API; node:sqlite
 * is close but not equal (parameters are spread, there is no `reader` flag), so
 * this adapts one `DatabaseSync` to it. Everything else (query compiler,
 * introspector) is Kysely's own.
 */
export class NodeSqliteDialect extends SqliteDialect {
  readonly #database: DatabaseSync;

  constructor(database: DatabaseSync) {
    super({ database: new NodeSqliteDatabase(database) });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new NodeSqliteDriver({ database: new NodeSqliteDatabase(this.#database) });
  }

  override createAdapter(): SqliteAdapter {
    return new NodeSqliteAdapter();
  }
}

/**
 * SQLite runs DDL inside transactions perfectly well; saying so makes Kysely's
 * Migrator wrap each migration in one, so two processes starting on the same
 * file cannot both apply it.
 */
class NodeSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class NodeSqliteDriver extends SqliteDriver {
  /**
   * `BEGIN IMMEDIATE` takes the write lock up front. A deferred transaction that
   * reads and then writes fails with SQLITE_BUSY (which busy_timeout cannot
   * retry) when another process, such as the CLI revoking a key, wrote in between.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

/** Preparing a statement costs about as much as running a small one: keep the hot ones. */
const STATEMENT_CACHE_SIZE = 200;

class NodeSqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, NodeSqliteStatement>();

  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const statement = new NodeSqliteStatement(this.#database.prepare(sql));
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    this.#statements.set(sql, statement);
    return statement;
  }

  close(): void {
    this.#statements.clear();
    if (this.#database.isOpen) this.#database.close();
  }
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: StatementSync;

  constructor(statement: StatementSync) {
    this.#statement = statement;
    // A statement returns rows exactly when it has result columns (SELECT, RETURNING, some PRAGMAs).
    this.reader = statement.columns().length > 0;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#statement.all(...(parameters as SqliteValue[]));
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#statement.run(...(parameters as SqliteValue[]));
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#statement.iterate(...(parameters as SqliteValue[]));
  }
}

type SqliteValue = null | number | bigint | string | NodeJS.ArrayBufferView;
