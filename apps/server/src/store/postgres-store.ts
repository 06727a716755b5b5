/**
 * The PostgreSQL store: the same queries as SQLite (Kysely compiles them with
 * its PostgreSQL dialect), run on a `pg` pool shared by the process.
 *
 * - Transactions are READ COMMITTED and begin lazily, at their first write:
 *   under READ COMMITTED every statement reads its own fresh snapshot inside
 *   or outside a transaction, so reads before the first write mean the same
 *   either way, and a read-only transaction (auth, status reads) costs its
 *   queries and no BEGIN or COMMIT.
 * - Every state change is a conditional UPDATE (compare-and-set) that
 *   PostgreSQL re-checks on the newest row version after a lock wait, so two
 *   processes racing for one task see exactly one winner.
 * - A transaction PostgreSQL aborts to break a deadlock or a serialization
 *   conflict is run again from the start, a few times, with jitter: the work
 *   passed to `transaction` must be safe to run again (docs/operating.md).
 * - After a commit that made work for workers (a queued task, a due webhook
 *   event), a wake-up hint goes out through `onWork` (see pg-notify.ts).
 */
import {
  assertTransactionOpen,
  type Store,
  type StoreTransaction,
  type TransactionOptions,
} from "@genvideo/engine";
import { type CompiledQuery, Kysely, PostgresDialect, SelectQueryNode } from "kysely";
import pg from "pg";
import { DatabaseReachability, type ServedCall } from "./database-reachability.js";
import { resetConnection, watchForDeadPath } from "./dead-path-watch.js";
import { createStoreTransaction } from "./kysely-store.js";
import { migrateToLatest } from "./migrations.js";
import type { QueryContext } from "./query-group.js";
import { KyselyRequestPathQueries } from "./request-path-queries.js";
import { CompiledQueries, type PreparedQuery, type SqlExecutor } from "./sql-executor.js";
import { RowShapes, runStatement } from "./statement-run.js";
import type { Database } from "./tables.js";

export interface PostgresStoreOptions {
  /** Connections this process may open for queries (default 10). */
  poolSize?: number;
  /** Shown in `pg_stat_activity` (and kept by the tests' audit of who wrote what). */
  applicationName?: string;
  /** Called once after each commit that queued a task or made a webhook event due. */
  onWork?: () => void;
  /** Apply migrations at open (default true; readiness checks and tools pass false). */
  migrate?: boolean;
  /**
   * PostgreSQL ends a session that sits in an open transaction this long
   * (`idle_in_transaction_session_timeout`), releasing its row locks: a
   * process frozen mid-transaction (SIGSTOP, a VM pause) must not hold up
   * every other process. Our transactions never wait on anything but the
   * database, so the server passes its lease time. Default: the server's setting.
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * How long a silent network path to PostgreSQL is given before it counts as
   * dead (default 5 s): a connect taking longer is abandoned and tried again,
   * and a query left unanswered while a TCP handshake to the database goes
   * unanswered this long is dropped with its connection (dead-path-watch.ts).
   * The server passes half a lease, at most 5 s: a connection that cannot
   * renew a lease in time is worth no more than a new one.
   */
  deadPathMs?: number;
  /**
   * Where this process's episodes of a database out of reach are kept and logged: the store's
   * transactions and the pool's checks report to it. Default: one of its own, logging nothing.
   */
  reachability?: DatabaseReachability;
}

export interface PostgresStoreHandle {
  /** The process's connection pool (the store's transactions, the shared rate limits). */
  store: Store;
  reachability: DatabaseReachability;
  /** Kysely on the same pool, for what is not the engine's: migrations, the server's own state. */
  db: Kysely<Database>;
  pool: pg.Pool;
}

/** How many times an aborted transaction (deadlock, serialization failure) is run in all. */
const MAX_ATTEMPTS = 5;
/** SQLSTATEs of a transaction PostgreSQL rolled back to let another one through. */
const RETRYABLE = new Set(["40001", "40P01"]);
/** The advisory lock that makes migrations run in one process at a time ("genvideo" in ASCII). */
const MIGRATION_LOCK = 0x67656e766964656fn;

/** PostgreSQL's `bigint` (oid 20) comes back as a JS number: every one we store is a ms time or a count. */
const INT8_OID = 20;
/** One parser for every such column. */
const parseInt8 = (value: string) => Number(value);
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? parseInt8
      : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/** The parser of a column of type `oid` in text format, for `RowShapes`: the pool's own. */
export function columnParser(oid: number): (text: string) => unknown {
  return types.getTypeParser(oid, "text");
}

/** A query unanswered this long makes the pool check its network path (dead-path-watch.ts). */
const SUSPECT_AFTER_MS = 1_000;
/**
 * A check's handshake unanswered this long starts an episode of the database out of reach
 * (database-reachability.ts): requests are answered 503 from then on, within about
 * SUSPECT_AFTER_MS + UNANSWERED_AFTER_MS of their start (docs/api.md#errors).
 */
const UNANSWERED_AFTER_MS = 1_000;

export function createPostgresPool(url: string, options: PostgresStoreOptions = {}): pg.Pool {
  const deadPathMs = options.deadPathMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    application_name: options.applicationName ?? "genvideo",
    types,
    // Idle connections on a path that died are found by TCP's own probes, before they are used.
    keepAlive: true,
    keepAliveInitialDelayMillis: deadPathMs,
    // The connect of each client, not the wait for a free one: the pool's own
    // connectionTimeoutMillis would also fail callers queued behind healthy slow queries.
    // (pg's types say the pool constructs Client without arguments; it passes the pool's options.)
    Client: class BoundedConnectClient extends pg.Client {
      constructor(config: pg.ClientConfig) {
        super({ ...config, connectionTimeoutMillis: deadPathMs });
      }
    } as unknown as new () => pg.ClientBase,
    ...(options.idleInTransactionTimeoutMs
      ? { options: `-c idle_in_transaction_session_timeout=${Math.ceil(options.idleInTransactionTimeoutMs)}` }
      : {}),
  });
  // An idle connection the server dropped (restart, failover) must not crash the process.
  pool.on("error", () => undefined);
  const target = networkAddressOf(url);
  if (target) {
    const watch = watchForDeadPath(pool, {
      ...target,
      suspectAfterMs: SUSPECT_AFTER_MS,
      probeTimeoutMs: deadPathMs,
      unansweredAfterMs: UNANSWERED_AFTER_MS,
      onUnanswered: (reason, since) => options.reachability?.lost(reason, since),
      onDeadPath: (dropped) => options.reachability?.droppedOnDeadPath(dropped),
    });
    const end = pool.end.bind(pool);
    pool.end = (() => {
      watch.stop();
      return end();
    }) as typeof pool.end;
  }
  return pool;
}

/** Host and port of a TCP connection string; undefined for a Unix socket, which no partition cuts. */
function networkAddressOf(url: string): { host: string; port: number } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const socketHost = parsed.searchParams.get("host");
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (host === "" || socketHost?.startsWith("/")) return undefined;
  return { host, port: Number(parsed.port || 5432) };
}

/** Connects, applies the migrations once (under an advisory lock) and returns the store. */
export async function openPostgresStore(
  url: string,
  givenOptions: PostgresStoreOptions = {},
): Promise<PostgresStoreHandle> {
  const options = { ...givenOptions, reachability: givenOptions.reachability ?? new DatabaseReachability() };
  const pool = createPostgresPool(url, options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (options.migrate ?? true) await migrateUnderLock(pool, db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, pool, reachability: options.reachability, store: createPostgresStore(pool, db, options) };
}

/**
 * Several processes starting at once on an empty database: one migrates, the
 * others wait for it on the advisory lock and then find nothing to do. The
 * lock is held by a connection of its own for the whole run (Kysely's own
 * lock is taken only after it creates its bookkeeping tables, which would
 * race).
 */
async function migrateUnderLock(pool: pg.Pool, db: Kysely<Database>): Promise<void> {
  const holder = await pool.connect();
  try {
    await holder.query("select pg_advisory_lock($1)", [MIGRATION_LOCK.toString()]);
    try {
      await migrateToLatest(db as Kysely<unknown>);
    } finally {
      await holder.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK.toString()]);
    }
  } finally {
    holder.release();
  }
}

export function createPostgresStore(
  pool: pg.Pool,
  db: Kysely<Database>,
  options: PostgresStoreOptions = {},
): Store {
  const compiled = new CompiledQueries();
  const shapes = new RowShapes(columnParser);
  const reachability = options.reachability ?? new DatabaseReachability();
  let closed = false;

  /**
   * A connection from the pool; one that comes after the call was given up on goes back at once,
   * unused. The wait for it is not raced against the give-up: the caller is answered at the
   * give-up by `reachability.serve`, and what must hold here, that nothing is sent once given up
   * on, is the check after the connection comes. A race of its own (a promise bound to an abort
   * signal, an abort listener, a then() to return a late connection) cost a status read about
   * 5 us of CPU whenever the pool was busy, which under load is always.
   */
  async function connect(call: ServedCall): Promise<pg.PoolClient> {
    if (call.givenUp) throw call.givenUp;
    const client = await pool.connect();
    if (call.givenUp) {
      client.release();
      throw call.givenUp;
    }
    return client;
  }

  async function attempt<T>(
    work: (context: QueryContext) => Promise<T>,
    hints: TransactionOptions,
    call: ServedCall,
  ): Promise<T> {
    const client = await connect(call);
    let writes = 0;
    let open = true;
    let begun: Promise<unknown> | undefined;
    let madeWork = false;
    let broken: Error | undefined;
    // The pool listens for errors on idle connections only. A session PostgreSQL ends while we
    // hold it between two statements (idle_in_transaction_session_timeout after this process was
    // frozen, a restart) emits 'error' here; unheard, that would crash the process. Heard, the
    // next query fails, the transaction with it, and the pool drops the connection at release.
    const onConnectionError = (error: Error) => {
      broken = error;
    };
    client.on("error", onConnectionError);
    // Given up on (the database out of reach): nothing more is sent, and what is on its way is
    // discarded with the connection, so that it cannot run after the caller was told it failed.
    call.onGiveUp = () => {
      open = false;
      broken = call.givenUp;
      const socket = (client as unknown as { connection?: { stream?: import("node:net").Socket } }).connection
        ?.stream;
      if (socket) resetConnection(socket, "given up on");
    };
    const run = async <R>(query: PreparedQuery) => {
      assertTransactionOpen(open);
      if (hints.readOnly) {
        if (needsTransaction(query)) throw new Error("a read-only transaction tried to write");
      } else if (hints.singleWrite) {
        // Its one write is atomic on its own, in autocommit: no BEGIN, no COMMIT.
        if (needsTransaction(query) && writes++ > 0)
          throw new Error("a single-write transaction ran a second write");
      } else if (needsTransaction(query)) {
        begun ??= client.query("begin");
        await begun;
      }
      // Fixed-shape queries are prepared once per connection, under their name.
      return runStatement<R>(client, shapes, query.preparedName, query.sql, query.parameters);
    };
    const exec: SqlExecutor = {
      rows: async <R>(query: CompiledQuery) => (await run<R>(query)).rows,
      first: async <R>(query: CompiledQuery) => (await run<R>(query)).rows[0],
      changes: async (query) => (await run(query)).rowCount,
    };
    try {
      const value = await work({
        db,
        exec,
        compiled,
        rowLocks: true,
        dataModifyingCtes: true,
        onWork: () => {
          madeWork = true;
        },
      });
      open = false;
      if (begun) await client.query("commit");
      if (madeWork) options.onWork?.();
      return value;
    } catch (error) {
      open = false;
      if (begun) {
        await client.query("rollback").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
      }
      throw error;
    } finally {
      call.onGiveUp = undefined;
      client.removeListener("error", onConnectionError);
      // A connection that failed (or whose rollback failed) is in an unknown state: the pool drops it.
      client.release(broken);
    }
  }

  /** Runs `work` as a transaction (see `Store.transaction`): retried when PostgreSQL aborted it. */
  async function run<T>(work: (context: QueryContext) => Promise<T>, hints: TransactionOptions): Promise<T> {
    if (closed) throw new Error("the store is closed");
    return reachability.serve(async (call) => {
      for (let attemptNumber = 1; ; attemptNumber++) {
        try {
          return await attempt(work, hints, call);
        } catch (error) {
          if (attemptNumber >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
          // Both victims of a deadlock retrying in step would meet again: spread them out.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attemptNumber));
        }
      }
    });
  }

  return {
    transaction<T>(work: (tx: StoreTransaction) => Promise<T>, hints: TransactionOptions = {}): Promise<T> {
      return run((context) => work(createStoreTransaction(context)), hints);
    },
    // The key, the charge, its ledger entry and the task in one statement, in autocommit.
    insertChargedTaskForKey(keyHash, now, task, charge) {
      return run(
        (context) =>
          new KyselyRequestPathQueries(context).insertChargedTaskForKey(keyHash, now, task, charge),
        { singleWrite: true },
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/** Plain SELECTs run outside a transaction until the first write; locking ones and writes begin it. */
function needsTransaction(query: CompiledQuery): boolean {
  const node = query.query;
  return !SelectQueryNode.is(node) || (node.endModifiers?.length ?? 0) > 0;
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && RETRYABLE.has(code);
}
