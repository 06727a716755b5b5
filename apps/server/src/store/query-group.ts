/** What the query groups share: a compile-only Kysely, an executor and the cache of fixed-shape queries. */
import type { CompiledQuery, Kysely } from "kysely";
import type { CompiledQueries, SqlExecutor } from "./sql-executor.js";
import type { Database } from "./tables.js";

export interface QueryContext {
  /** Builds and compiles queries; never executes them itself. */
  db: Kysely<Database>;
  exec: SqlExecutor;
  compiled: CompiledQueries;
  /** `FOR UPDATE SKIP LOCKED` in claims (PostgreSQL: workers in several processes). */
  rowLocks: boolean;
  /**
   * The database runs INSERT and UPDATE inside WITH (PostgreSQL): a create's
   * charge, ledger entry and task go in one statement. Otherwise one each.
   */
  dataModifyingCtes?: boolean;
  /**
   * Reads a task's stored request (its JSON text) at once, outside any query
   * of the transaction. When given, tasks are read without their request and
   * load it the first time `request` is used: a request never changes once
   * written, so when it is read does not matter. SQLite (synchronous) only;
   * without it the request is joined to every task read.
   */
  loadRequest?: (taskId: string) => string | undefined;
  /**
   * Told when the transaction queues work for workers (a task, a webhook
   * event): PostgreSQL sends one wake-up hint after such a commit.
   */
  onWork?: () => void;
}

interface Compilable {
  compile(): CompiledQuery;
}

export abstract class QueryGroup {
  protected readonly db: Kysely<Database>;
  protected readonly context: QueryContext;

  constructor(context: QueryContext) {
    this.context = context;
    this.db = context.db;
  }

  protected rows<Row>(query: Compilable | CompiledQuery): Promise<Row[]> {
    return this.context.exec.rows<Row>(compiledOf(query));
  }

  protected first<Row>(query: Compilable | CompiledQuery): Promise<Row | undefined> {
    return this.context.exec.first<Row>(compiledOf(query));
  }

  protected changes(query: Compilable | CompiledQuery): Promise<number> {
    return this.context.exec.changes(compiledOf(query));
  }

  /** A fixed-shape query compiled once (see `CompiledQueries`). */
  protected cached(name: string, build: () => Compilable, values: readonly unknown[]): CompiledQuery {
    return this.context.compiled.get(name, build, values);
  }
}

function compiledOf(query: Compilable | CompiledQuery): CompiledQuery {
  return typeof (query as Compilable).compile === "function"
    ? (query as Compilable).compile()
    : (query as CompiledQuery);
}
