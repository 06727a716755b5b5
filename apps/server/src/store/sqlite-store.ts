/**
 * The SQLite store: one node:sqlite connection, Kysely to compile the shared
 * queries, and transactions run directly (BEGIN IMMEDIATE ... COMMIT under the
 * connection's lock) because Kysely's transaction layer costs several times
 * the queries on this hot path.
 */
import { assertTransactionOpen, chargeForKey, type Store, type StoreTransaction } from "@genvideo/engine";
import { type CompiledQuery, Kysely, type QueryResult, SelectQueryNode } from "kysely";
import { createStoreTransaction } from "./kysely-store.js";
import { migrateToLatest } from "./migrations.js";
import { executeOnSqlite, firstOnSqlite, NodeSqliteDialect } from "./node-sqlite-dialect.js";
import { CompiledQueries, type SqlExecutor } from "./sql-executor.js";
import { SqliteConnection } from "./sqlite-connection.js";
import { sqliteWorkSignals, type WorkSignals } from "./sqlite-work-signals.js";
import type { Database } from "./tables.js";
import { startWalCheckpointer } from "./wal-checkpointer.js";

export interface SqliteStoreHandle {
  store: Store;
  /** Kysely on the same connection, for what is not the engine's: migrations, the server's own state. */
  db: Kysely<Database>;
  /** What the worker loop asks before a tick, to skip the idle ones (see sqlite-work-signals.ts). */
  workSignals: WorkSignals;
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
  /**
   * Background checkpoints: how often (ms, default 1000), past which WAL size
   * writers wait for one (default 64 MiB), and how often, under steady writes,
   * the store lets the thread catch up between two groups (ms, default 250;
   * see `SqliteStoreOptions.walUpkeep`).
   */
  checkpoints?: { intervalMs?: number; maxWalBytes?: number; upkeepMs?: number };
  /** For tests: see `SqliteStoreOptions.rehearse`. */
  rehearse?: boolean;
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
  const { rehearse } = options;
  if (!options.backgroundCheckpoints || path === ":memory:")
    return {
      db,
      store: createSqliteStore(connection, db, { rehearse }),
      workSignals: sqliteWorkSignals(connection),
    };
  connection.database.exec("PRAGMA wal_autocheckpoint = 0");
  const checkpointer = startWalCheckpointer(path, {
    ...options.checkpoints,
    onError: options.onCheckpointError,
  });
  return {
    db,
    workSignals: sqliteWorkSignals(connection),
    store: createSqliteStore(connection, db, {
      rehearse,
      afterClose: () => checkpointer.stop(),
      walUpkeep: {
        everyMs: options.checkpoints?.upkeepMs ?? WAL_UPKEEP_INTERVAL_MS,
        checkpoint: () => checkpointer.checkpointNow(),
      },
    }),
  };
}

/** Kysely on a SQLite file without migrating or a store (readiness checks, tools). */
export function openSqliteKysely(path: string, options: OpenSqliteOptions = {}): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new NodeSqliteDialect(new SqliteConnection(path, options.busyTimeoutMs)),
  });
}

/**
 * How often, while groups keep writing, the store lets the background
 * checkpoint catch up between two groups (see `SqliteStoreOptions.walUpkeep`).
 */
const WAL_UPKEEP_INTERVAL_MS = 250;

export interface SqliteStoreOptions {
  /** Runs once the connection is closed (the background checkpointer's stop). */
  afterClose?: () => Promise<void>;
  /**
   * With checkpoints in a background thread, the WAL can only start over from
   * its beginning when a checkpoint has caught up with its end and a writer
   * comes next. Under steady writes the thread never quite catches up, and
   * the WAL grew by the whole write rate (~90 MB/s) until its size limit
   * forced a blocking checkpoint that made writers fail. So at most every
   * `everyMs`, after a group that wrote, the store holds the next group back
   * while `checkpoint` runs (in the thread: the event loop goes on reading
   * requests, which join the next group); with none of our transactions in
   * the way it copies the whole WAL, and the next group starts it over.
   */
  walUpkeep?: { everyMs: number; checkpoint: () => Promise<void> };
  /**
   * For tests: each group runs once and is rolled back, then runs for real,
   * as a group does when another process wrote in between (see below). Work
   * that is not safe to run again (`Store.transaction`) then fails at once.
   */
  rehearse?: boolean;
}

/** At most this many transactions share one SQLite transaction (see `createSqliteStore`). */
const MAX_GROUP = 32;

interface Waiting {
  work: (tx: StoreTransaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit, as docs/architecture.md ("State changes are transactions")
 * tells it: the transactions asked for during one turn of the event loop (and
 * while a group runs) share one SQLite transaction, none answered before the
 * shared COMMIT. Alone, a transaction runs exactly as it would without the group.
 *
 * A member that fails before its first write has nothing to undo and fails
 * alone. One that fails after writing must leave nothing: the group is rolled
 * back and run again with each member in a savepoint taken at its first write,
 * where it then fails alone. Savepoints are not taken up front: two statements
 * more per member, and past 64 KiB SQLite's journal of savepoints spills to a
 * temporary file, which a group of creates reached (a dozen writes to it per
 * create, and an open and unlink per group): taken up front, a create cost
 * 270-287 µs of the server's CPU in the pinned bench, 202-242 µs without.
 *
 * Transactions start deferred and take the write lock at their first write,
 * so the many read-only ones (auth, status reads) skip the cost of the lock.
 * Within this process the queue already serialises transactions; only
 * another process (the CLI) can commit between a group's reads and its first
 * write, and SQLite then refuses the upgrade (SQLITE_BUSY). The group is
 * rolled back and run again from the start with BEGIN IMMEDIATE, which waits
 * for the lock instead and cannot be refused.
 */
export function createSqliteStore(
  connection: SqliteConnection,
  db: Kysely<Database>,
  { afterClose, walUpkeep, rehearse = false }: SqliteStoreOptions = {},
): Store {
  const compiled = new CompiledQueries();
  let wroteSinceUpkeep = false;
  let nextUpkeep = 0;
  const waiting: Waiting[] = [];
  let draining: Promise<void> | undefined;
  let closed = false;
  const run = (sql: string) => connection.statement(sql).statement.run();
  const loadRequest = (taskId: string) =>
    (
      connection.statement("select request from task_requests where task_id = ?").statement.get(taskId) as
        | [string]
        | undefined
    )?.[0];

  /**
   * Runs `group` in one SQLite transaction: each member's outcome, or a throw
   * when the whole group failed. A rehearsal rolls back instead of committing.
   */
  async function runGroup(
    group: Waiting[],
    { immediate, savepoints, rehearsal = false }: GroupRun,
  ): Promise<Outcome[]> {
    const groupTransaction = new GroupTransaction(connection, group.length > 1, savepoints, immediate);
    const outcomes: Outcome[] = [];
    run(immediate ? "begin immediate" : "begin");
    try {
      for (const member of group) {
        const exec = new MemberExecutor(groupTransaction);
        try {
          const value = await member.work(
            createStoreTransaction({ db, exec, compiled, rowLocks: false, loadRequest }),
          );
          if (exec.savepoint) run("release member");
          outcomes.push({ ok: true, value });
        } catch (error) {
          // Alone, or when SQLite itself ended the transaction, the failure is the group's.
          if (
            !groupTransaction.shared ||
            error instanceof WriteLockRefused ||
            !connection.database.isTransaction
          )
            throw error;
          if (exec.savepoint) {
            run("rollback to member");
            run("release member");
          } else if (exec.wrote) throw new MemberWritesToUndo();
          outcomes.push({ ok: false, error });
        } finally {
          exec.open = false;
        }
      }
      if (rehearsal) {
        run("rollback");
        return outcomes;
      }
      run("commit");
      if (groupTransaction.wrote) wroteSinceUpkeep = true;
      return outcomes;
    } catch (error) {
      if (connection.database.isTransaction) run("rollback");
      throw error;
    }
  }

  async function settle(group: Waiting[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      // What the rehearsal returns or throws does not count: the real run decides.
      if (rehearse)
        await runGroup(group, { immediate: true, savepoints: false, rehearsal: true }).catch(() => undefined);
      const attempt: GroupRun = { immediate: false, savepoints: false };
      for (;;) {
        try {
          outcomes = await runGroup(group, attempt);
          break;
        } catch (error) {
          if (error instanceof WriteLockRefused && !attempt.immediate) attempt.immediate = true;
          else if (error instanceof MemberWritesToUndo && !attempt.savepoints) attempt.savepoints = true;
          else throw error;
        }
      }
    } catch (error) {
      for (const member of group) member.reject(error);
      return;
    }
    outcomes.forEach((outcome, index) => {
      const member = group[index]!;
      if (outcome.ok) member.resolve(outcome.value);
      else member.reject(outcome.error);
    });
  }

  async function upkeepWal(): Promise<void> {
    if (!walUpkeep || !wroteSinceUpkeep || performance.now() < nextUpkeep) return;
    wroteSinceUpkeep = false;
    await walUpkeep.checkpoint();
    nextUpkeep = performance.now() + walUpkeep.everyMs;
  }

  async function drain(): Promise<void> {
    try {
      while (waiting.length > 0) {
        const release = await connection.lock.acquire();
        try {
          await settle(waiting.splice(0, MAX_GROUP));
          await upkeepWal();
        } finally {
          release();
        }
      }
    } finally {
      // In the same turn as the last check of `waiting`: a transaction asked for after it starts a new drain.
      draining = undefined;
    }
  }

  // Read-only work joins the group too (`TransactionOptions.readOnly` changes nothing here): one
  // read transaction shared by a turn's reads cost less than a read transaction per statement in
  // autocommit, which took status reads from 43-45% of the server bench's baseline to 27-31%.
  function transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error("the store is closed"));
    return new Promise<T>((resolve, reject) => {
      waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // The group forms over the rest of this turn of the event loop: every
      // transaction asked for by the requests read in it joins.
      draining ??= new Promise<void>((turnEnded) => setImmediate(turnEnded)).then(drain);
    });
  }

  return {
    transaction,
    // The create's key read inside its own write transaction: one group membership and one turn of
    // the event loop fewer than a read transaction for the key and then the write.
    insertChargedTaskForKey: (keyHash, now, task, charge) =>
      transaction((tx) => chargeForKey(tx, keyHash, now, task, charge)),
    async close() {
      if (closed) return;
      closed = true;
      // Lets the transactions already asked for finish, then closes for everyone.
      await draining;
      const release = await connection.lock.acquire();
      release();
      connection.close();
      await afterClose?.();
    },
  };
}

type RunQuery = typeof executeOnSqlite | typeof firstOnSqlite;

/** One run of a group: its SQLite transaction, shared by its members' executors. */
class GroupTransaction {
  readonly connection: SqliteConnection;
  /** More than one member: a member's failure may be its own, not the group's. */
  readonly shared: boolean;
  /** Each member in a savepoint taken at its first write (see `createSqliteStore`). */
  readonly savepoints: boolean;
  /** Whether the transaction holds the write lock: BEGIN IMMEDIATE, or a write succeeded. */
  wrote: boolean;

  constructor(connection: SqliteConnection, shared: boolean, savepoints: boolean, immediate: boolean) {
    this.connection = connection;
    this.shared = shared;
    this.savepoints = savepoints;
    this.wrote = immediate;
  }

  /** Runs a write; the first one takes the write lock, which another process may have taken first. */
  write<R>(query: CompiledQuery, runQuery: RunQuery): unknown {
    if (this.wrote) return runQuery<R>(this.connection, query);
    this.wrote = true;
    try {
      return runQuery<R>(this.connection, query);
    } catch (error) {
      if (isBusy(error)) throw new WriteLockRefused();
      throw error;
    }
  }
}

/**
 * A group member's queries, run in its group's transaction. An object with its methods on the
 * prototype: a closure per method and per flag, made for every member, were a status read's
 * largest share of the store's garbage.
 */
class MemberExecutor implements SqlExecutor {
  /** False once the member's work ended: a query issued after it would run in someone else's. */
  open = true;
  /** Whether this member's savepoint is taken. */
  savepoint = false;
  /** Set once a write of this member succeeded: a statement that fails leaves nothing of itself. */
  wrote = false;

  readonly transaction: GroupTransaction;

  constructor(transaction: GroupTransaction) {
    this.transaction = transaction;
  }

  async rows<R>(query: CompiledQuery): Promise<R[]> {
    return (this.#execute(query, executeOnSqlite) as QueryResult<R>).rows;
  }

  async first<R>(query: CompiledQuery): Promise<R | undefined> {
    return this.#execute(query, firstOnSqlite) as R | undefined;
  }

  async changes(query: CompiledQuery): Promise<number> {
    return Number((this.#execute(query, executeOnSqlite) as QueryResult<unknown>).numAffectedRows ?? 0n);
  }

  #execute<R>(query: CompiledQuery, runQuery: RunQuery): unknown {
    assertTransactionOpen(this.open);
    const { transaction } = this;
    if (SelectQueryNode.is(query.query)) return runQuery<R>(transaction.connection, query);
    if (transaction.shared && transaction.savepoints && !this.savepoint) {
      transaction.connection.statement("savepoint member").statement.run();
      this.savepoint = true;
    }
    const result = transaction.write<R>(query, runQuery);
    this.wrote = true;
    return result;
  }
}

/** Another process wrote since this transaction's first read: it must start over. */
class WriteLockRefused extends Error {
  override name = "WriteLockRefused";
}

/** A group member failed after it wrote, with no savepoint to roll back to: the group runs again with them. */
class MemberWritesToUndo extends Error {
  override name = "MemberWritesToUndo";
}

/**
 * How a group runs: `immediate` takes the write lock at BEGIN (after another process got in
 * between), `savepoints` puts each member in one (after a member failed past its first write),
 * `rehearsal` rolls back instead of committing (tests).
 */
interface GroupRun {
  immediate: boolean;
  savepoints: boolean;
  rehearsal?: boolean;
}

function isBusy(error: unknown): boolean {
  // SQLITE_BUSY is 5; its extended codes (BUSY_SNAPSHOT 517, ...) keep 5 in the low byte.
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === "number" && (code & 0xff) === 5;
}
