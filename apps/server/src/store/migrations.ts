/**
 * The schema's history, in code so that the built server carries it (no
 * migration folder to locate at run time). Append new migrations; never edit
 * one that has shipped. Types stay portable: `bigint` is INTEGER on SQLite,
 * JSON is `text` on both.
 */
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";

const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("accounts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("credits", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("ledger_entries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("task_id", "text")
      .addColumn("delta", "bigint", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("ledger_entries_account").on("ledger_entries").column("account_id").execute();
    // A task is charged once and refunded at most once, whatever the code above does.
    await db.schema
      .createIndex("ledger_entries_task_reason")
      .on("ledger_entries")
      .columns(["task_id", "reason"])
      .unique()
      .where(sql.ref("task_id"), "is not", null)
      .execute();

    await db.schema
      .createTable("api_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("hash", "text", (c) => c.notNull().unique())
      .addColumn("prefix", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .addColumn("expires_at", "bigint")
      .execute();
    await db.schema.createIndex("api_keys_account").on("api_keys").column("account_id").execute();

    await db.schema
      .createTable("webhook_secrets")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("secret", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint")
      .execute();
    await db.schema
      .createIndex("webhook_secrets_account")
      .on("webhook_secrets")
      .column("account_id")
      .execute();

    await db.schema
      .createTable("tasks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("failure_code", "text")
      .addColumn("request", "text", (c) => c.notNull())
      .addColumn("model_type", "text", (c) => c.notNull())
      .addColumn("aspect_ratio", "text", (c) => c.notNull())
      .addColumn("callback_url", "text")
      .addColumn("scenario", "text", (c) => c.notNull())
      .addColumn("scenario_fail", "text")
      .addColumn("cost", "bigint", (c) => c.notNull())
      .addColumn("refunded_at", "bigint")
      .addColumn("progress", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("started_at", "bigint")
      .addColumn("finish_at", "bigint")
      .addColumn("deadline_at", "bigint", (c) => c.notNull())
      .addColumn("completed_at", "bigint")
      .addColumn("video_key", "text")
      .addColumn("lease_owner", "text")
      .addColumn("lease_expires_at", "bigint")
      .execute();
    await db.schema.createIndex("tasks_account").on("tasks").column("account_id").execute();
    // The worker's queries each read one of these; all but the first stay small (unfinished tasks only).
    await db.schema.createIndex("tasks_state_created").on("tasks").columns(["state", "created_at"]).execute();
    await db.schema
      .createIndex("tasks_unfinished_deadline")
      .on("tasks")
      .column("deadline_at")
      .where(sql.ref("state"), "in", sql`('queued', 'processing')`)
      .execute();
    await db.schema
      .createIndex("tasks_processing_finish")
      .on("tasks")
      .column("finish_at")
      .where(sql.ref("state"), "=", sql.lit("processing"))
      .execute();
    await db.schema
      .createIndex("tasks_processing_lease")
      .on("tasks")
      .column("lease_expires_at")
      .where(sql.ref("state"), "=", sql.lit("processing"))
      .execute();

    await db.schema
      .createTable("idempotency_keys")
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("request_hash", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("response_status", "bigint")
      .addColumn("response_body", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "key"])
      .execute();
    await db.schema
      .createIndex("idempotency_keys_expires")
      .on("idempotency_keys")
      .column("expires_at")
      .execute();

    await db.schema
      .createTable("webhook_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id"))
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("attempt_count", "bigint", (c) => c.notNull())
      .addColumn("next_attempt_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("lease_owner", "text")
      .addColumn("lease_expires_at", "bigint")
      .execute();
    await db.schema.createIndex("webhook_events_task").on("webhook_events").column("task_id").execute();
    await db.schema
      .createIndex("webhook_events_pending_due")
      .on("webhook_events")
      .column("next_attempt_at")
      .where(sql.ref("state"), "=", sql.lit("pending"))
      .execute();

    await db.schema
      .createTable("webhook_attempts")
      .addColumn("event_id", "text", (c) => c.notNull().references("webhook_events.id"))
      .addColumn("attempt", "bigint", (c) => c.notNull())
      .addColumn("started_at", "bigint", (c) => c.notNull())
      .addColumn("duration_ms", "bigint", (c) => c.notNull())
      .addColumn("status_code", "bigint")
      .addColumn("error", "text")
      .addPrimaryKeyConstraint("webhook_attempts_pk", ["event_id", "attempt"])
      .execute();

    await db.schema
      .createTable("service_state")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
  },
};

/**
 * Requests (images included, up to the 64 MiB body limit) move out of the
 * task rows. SQLite stores a row's columns in order and `request` came fifth:
 * reading any later column of an image task (its state, for a status read)
 * walked the megabytes of overflow pages in between, 4.7 ms a read for a
 * 5.6 MB request. Apart, the request is read only where a task is rendered.
 */
const taskRequests: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("task_requests")
      .addColumn("task_id", "text", (c) => c.primaryKey().references("tasks.id"))
      .addColumn("request", "text", (c) => c.notNull())
      .execute();
    await sql`insert into task_requests (task_id, request) select id, request from tasks`.execute(db);
    await db.schema.alterTable("tasks").dropColumn("request").execute();
  },
};

/**
 * The worker's queries each get an index that holds only the tasks they look
 * for. `tasks_state_created` held every task ever made, so SQLite preferred
 * its `state = ?` to the partial indexes of the sweeps and read and sorted
 * every unfinished task on every tick; the claim needs queued tasks only.
 */
const queuedIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex("tasks_state_created").execute();
    await db.schema
      .createIndex("tasks_queued_created")
      .on("tasks")
      .columns(["created_at", "id"])
      .where(sql.ref("state"), "=", sql.lit("queued"))
      .execute();
  },
};

/**
 * Small requests (text prompts, most of them) come back into the task row, as
 * its last column: a second row per create, on a random page of
 * `task_requests`, cost a quarter of the create throughput. Rows written
 * before keep their requests in `task_requests` (the column is null for them).
 */
const smallRequestsInline: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("tasks").addColumn("request", "text").execute();
  },
};

/**
 * The dashboard: key names and coalesced "last used" times, one-time sign-in
 * links and sessions (both stored as SHA-256 of the token, never the token),
 * and an index that serves an account's task list newest first by keyset
 * (it replaces `tasks_account`, whose every query it also serves; `created_at`
 * never changes, so it costs no write on a task's updates).
 */
const dashboard: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("api_keys")
      .addColumn("name", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    await db.schema.alterTable("api_keys").addColumn("last_used_at", "bigint").execute();

    await db.schema
      .createTable("dashboard_sign_in_links")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .execute();
    await db.schema
      .createTable("dashboard_sessions")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("dashboard_sessions_account")
      .on("dashboard_sessions")
      .column("account_id")
      .execute();

    await db.schema
      .createIndex("tasks_account_created")
      .on("tasks")
      .columns(["account_id", "created_at", "id"])
      .execute();
    await db.schema.dropIndex("tasks_account").execute();
    await db.schema
      .createIndex("ledger_entries_account_created")
      .on("ledger_entries")
      .columns(["account_id", "created_at", "id"])
      .execute();
    await db.schema.dropIndex("ledger_entries_account").execute();
    // The delivery log: an account's events newest first.
    await db.schema
      .createIndex("webhook_events_account_created")
      .on("webhook_events")
      .columns(["account_id", "created_at", "id"])
      .execute();
  },
};

/**
 * PostgreSQL only (a no-op on SQLite): the rows every task and webhook event
 * rewrites several times (claim, lease renewals, completion) get room on
 * their page, so an update can stay on it without touching the indexes
 * (HOT), and autovacuum visits these tables after 2% of their rows changed
 * instead of 20%, before the dead versions slow the claims down.
 */
const hotTables: Migration = {
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    for (const table of ["tasks", "webhook_events"]) {
      await sql`alter table ${sql.table(table)} set (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)`.execute(
        db,
      );
    }
  },
};

/**
 * PostgreSQL only: the rate-limit buckets every API process shares (see
 * postgres-rate-limiter.ts). UNLOGGED: losing them in a crash only refills
 * every bucket, and no request waits for a WAL flush to spend a token.
 */
const rateLimitBuckets: Migration = {
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`create unlogged table rate_limit_buckets (
      bucket text primary key,
      tokens double precision not null,
      updated_at bigint not null,
      allowed boolean not null
    ) with (fillfactor = 50)`.execute(db);
  },
};

/** The delivery log shows the start of each receiver's answer (a bounded excerpt, null before this). */
const webhookResponseExcerpt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("webhook_attempts").addColumn("response_excerpt", "text").execute();
  },
};

/**
 * Test events sent from the dashboard, kept for its delivery log beside the
 * tasks' events: one attempt each (a test is sent once, never retried), and no
 * task, so not in `webhook_events` (whose rows belong to a task and are
 * delivered by the workers).
 */
const webhookTestEvents: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("webhook_test_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("duration_ms", "bigint", (c) => c.notNull())
      .addColumn("status_code", "bigint")
      .addColumn("error", "text")
      .addColumn("response_excerpt", "text")
      .execute();
    await db.schema
      .createIndex("webhook_test_events_account_created")
      .on("webhook_test_events")
      .columns(["account_id", "created_at", "id"])
      .execute();
  },
};

/**
 * The key-creation forms already used: a form posted again (a reload, the back
 * button, to another API process) creates and shows no second key. Wall-clock
 * times; rows older than a day go with the expired sessions.
 */
const dashboardFormNonces: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("dashboard_form_nonces")
      .addColumn("nonce", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};

/** Every migration, by name; names sort in the order they apply. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001_initial": initial,
  "0002_task_requests": taskRequests,
  "0003_queued_index": queuedIndex,
  "0004_small_requests_inline": smallRequestsInline,
  "0005_dashboard": dashboard,
  "0006_postgres_hot_tables": hotTables,
  "0007_postgres_rate_limit_buckets": rateLimitBuckets,
  "0008_webhook_response_excerpt": webhookResponseExcerpt,
  "0009_webhook_test_events": webhookTestEvents,
  "0010_dashboard_form_nonces": dashboardFormNonces,
};

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

export function createMigrator(db: Kysely<unknown>): Migrator {
  return new Migrator({
    db,
    provider,
    migrationTableName: "genvideo_migration",
    migrationLockTableName: "genvideo_migration_lock",
  });
}

/** Applies what is missing; a failure stops the start with the migration's name. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const { error, results } = await createMigrator(db).migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === "Error")?.migrationName;
    throw new Error(
      `database migration ${failed ?? ""} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Names of the migrations this build knows that the database has not applied (empty when ready). */
export async function pendingMigrations(db: Kysely<unknown>): Promise<string[]> {
  const migrations = await createMigrator(db).getMigrations();
  return migrations
    .filter((migration) => migration.executedAt === undefined)
    .map((migration) => migration.name);
}
