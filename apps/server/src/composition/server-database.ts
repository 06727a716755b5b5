/**
 * The database a process runs on, whichever it is: SQLite (one process,
 * the default) or PostgreSQL (any number of processes). Both give the engine
 * a `Store`, the server a Kysely for its own bookkeeping, and a service clock;
 * PostgreSQL adds the wake-up hints between processes.
 */
import type { RateLimiterFactory, Store } from "@genvideo/engine";
import { type Kysely, sql } from "kysely";
import type pg from "pg";
import { openServiceClock, type ServiceClock } from "../clock/service-clock.js";
import { openSharedServiceClock, readSharedServiceClock } from "../clock/shared-service-clock.js";
import { ConfigError, type ServerConfig } from "../config.js";
import type { Logger } from "../logging/logger.js";
import { PostgresRateLimiter } from "../rate-limiter/postgres-rate-limiter.js";
import { DatabaseReachability } from "../store/database-reachability.js";
import { createWorkNotifier, listenForWork, type WorkListener } from "../store/pg-notify.js";
import { openPostgresStore } from "../store/postgres-store.js";
import { openSqliteStore } from "../store/sqlite-store.js";
import type { WorkSignals } from "../store/sqlite-work-signals.js";
import type { Database } from "../store/tables.js";

/** Free pages one SQLite incremental vacuum gives back at most (4 MiB of 4 KiB pages). */
const RECLAIMED_PAGES = 1024;

export interface ServerDatabase {
  store: Store;
  db: Kysely<Database>;
  clock: ServiceClock;
  /** Where it is, fit for logs (no password). */
  location: string;
  /**
   * PostgreSQL with GENVIDEO_PG_LISTEN on: calls `onWork` when another
   * process made work (a hint; polling stays the floor). Otherwise undefined.
   */
  listen(onWork: () => void): WorkListener | undefined;
  /**
   * Runs `work` while no other process runs work under the same name
   * (PostgreSQL: an advisory lock; SQLite has one process). For what every
   * process does once at start and must not do twice at once: the bootstrap.
   */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * SQLite: whether anything was written and when work is next due, so the
   * worker loop can skip ticks that would find nothing. Undefined on
   * PostgreSQL, whose workers tick on every interval (other processes' work
   * arrives by NOTIFY or that poll).
   */
  workSignals: WorkSignals | undefined;
  /** Rate-limit buckets shared by every process on the database (PostgreSQL); undefined: in memory. */
  rateLimiter: RateLimiterFactory | undefined;
  /**
   * PostgreSQL: this process's episodes of its database out of reach (logged, and answered 503);
   * undefined on SQLite, a file on this machine.
   */
  reachability: DatabaseReachability | undefined;
  /**
   * Gives back space that deleted rows left: on SQLite, up to `RECLAIMED_PAGES`
   * free pages (an incremental vacuum; a database made before auto_vacuum was
   * set reuses them instead); on PostgreSQL nothing, autovacuum does it.
   */
  reclaimSpace(): Promise<void>;
  /** PostgreSQL: this process's pool now (connections open, idle, queries waiting); undefined on SQLite. */
  poolStats: (() => { total: number; idle: number; waiting: number }) | undefined;
  close(): Promise<void>;
}

export interface OpenServerDatabaseOptions {
  /** The long-running server (background WAL checkpoints on SQLite), or a one-shot command. */
  server: boolean;
  /** Shown in PostgreSQL's `pg_stat_activity`: who holds which connection. */
  applicationName: string;
  logger?: Logger;
}

export async function openServerDatabase(
  config: ServerConfig,
  { server, applicationName, logger }: OpenServerDatabaseOptions,
): Promise<ServerDatabase> {
  const { database } = config;
  if (database.kind === "sqlite") {
    const { store, db, workSignals } = await openSqliteStore(database.path, {
      backgroundCheckpoints: server,
      onCheckpointError: (message) => logger?.warn({ error: message }, "WAL checkpoint failed"),
    }).catch((error: unknown) => {
      throw new ConfigError(
        `GENVIDEO_DATABASE_URL: cannot open sqlite:${database.path}: ${messageOf(error)}`,
      );
    });
    const clock = await openServiceClock(db, config.timeScale);
    return {
      store,
      db,
      clock,
      location: `sqlite:${database.path}`,
      listen: () => undefined,
      workSignals,
      exclusive: (_name, work) => work(),
      rateLimiter: undefined,
      reachability: undefined,
      reclaimSpace: async () => {
        await sql`pragma incremental_vacuum(${sql.lit(RECLAIMED_PAGES)})`.execute(db);
      },
      poolStats: undefined,
      close: () => store.close(),
    };
  }

  let hint: () => void = () => undefined;
  const handle = await openPostgresStore(database.url, {
    poolSize: config.postgres.poolSize,
    applicationName,
    // A process frozen longer than a lease loses its locks along with its leases.
    idleInTransactionTimeoutMs: config.leaseMs,
    deadPathMs: Math.min(5_000, Math.max(1_000, config.leaseMs / 2)),
    reachability: new DatabaseReachability({ logger }),
    onWork: () => hint(),
  }).catch((error: unknown) => {
    throw new ConfigError(`GENVIDEO_DATABASE_URL: cannot open ${database.redactedUrl}: ${messageOf(error)}`);
  });
  // A NOTIFY that failed with the database out of reach is counted in the episode, not logged.
  const notifier = createWorkNotifier(handle.pool, (error) => {
    if (!handle.reachability.housekeepingFailed(error))
      logger?.warn({ error: messageOf(error) }, "wake-up NOTIFY failed (workers still poll)");
  });
  hint = () => notifier.hint();
  let clock: ServiceClock;
  try {
    // A one-shot command reads the cluster's clock and never writes it: its
    // GENVIDEO_TIME_SCALE (often unset) must not become the cluster's.
    clock = server
      ? await openSharedServiceClock(handle.db, config.timeScale)
      : await readSharedServiceClock(handle.db, config.timeScale);
  } catch (error) {
    await handle.store.close();
    throw error;
  }
  return {
    store: handle.store,
    db: handle.db,
    clock,
    location: database.redactedUrl,
    workSignals: undefined,
    listen(onWork) {
      if (!config.postgres.listen) return undefined;
      return listenForWork(database.url, {
        applicationName: `${applicationName}-listen`.slice(0, 63),
        onWork,
        onError: (error) =>
          logger?.warn({ error: messageOf(error) }, "LISTEN connection lost (polling meanwhile)"),
      });
    },
    rateLimiter: (name, perMinute) =>
      new PostgresRateLimiter(handle.pool, name, perMinute, handle.reachability),
    reachability: handle.reachability,
    reclaimSpace: async () => undefined,
    poolStats: () => poolStats(handle.pool),
    async exclusive(name, work) {
      const holder = await handle.pool.connect();
      try {
        await holder.query("select pg_advisory_lock(hashtext($1))", [`genvideo:${name}`]);
        try {
          return await work();
        } finally {
          await holder.query("select pg_advisory_unlock(hashtext($1))", [`genvideo:${name}`]);
        }
      } finally {
        holder.release();
      }
    },
    async close() {
      await notifier.flush();
      await handle.store.close();
    },
  };
}

/**
 * The pool as a scrape should see it. pg's pool queues every request, even one
 * an idle connection will take at the next turn of the event loop: the scrape's
 * own queue read sat in `waitingCount` at every scrape of an idle process. A
 * query waits only when no idle connection is left for it.
 */
function poolStats(pool: Pick<pg.Pool, "totalCount" | "idleCount" | "waitingCount">): {
  total: number;
  idle: number;
  waiting: number;
} {
  return {
    total: pool.totalCount,
    idle: pool.idleCount,
    waiting: Math.max(0, pool.waitingCount - pool.idleCount),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
