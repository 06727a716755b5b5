/**
 * The schema's history, in code so that the built server carries it (no
 * migration folder to locate at run time): one module per migration in
 * `migrations/`, listed here. Append new migrations; never edit one that has
 * shipped (the schema snapshots, `__snapshots__/schema.sqlite.sql` and the
 * PostgreSQL suite's `schema.postgres.txt`, show an edit as a diff). Types stay
 * portable: `bigint` is INTEGER on SQLite, JSON is `text` on both.
 */
import type { Kysely } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { initial } from "./migrations/0001_initial.js";
import { taskRequests } from "./migrations/0002_task_requests.js";
import { queuedIndex } from "./migrations/0003_queued_index.js";
import { smallRequestsInline } from "./migrations/0004_small_requests_inline.js";
import { dashboard } from "./migrations/0005_dashboard.js";
import { hotTables } from "./migrations/0006_postgres_hot_tables.js";
import { rateLimitBuckets } from "./migrations/0007_postgres_rate_limit_buckets.js";
import { webhookResponseExcerpt } from "./migrations/0008_webhook_response_excerpt.js";
import { webhookTestEvents } from "./migrations/0009_webhook_test_events.js";
import { dashboardFormNonces } from "./migrations/0010_dashboard_form_nonces.js";
import { traceContext } from "./migrations/0011_trace_context.js";
import { webhookRequestHeaders } from "./migrations/0012_webhook_request_headers.js";
import { historyRetention } from "./migrations/0013_history_retention.js";

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
  "0011_trace_context": traceContext,
  "0012_webhook_request_headers": webhookRequestHeaders,
  "0013_history_retention": historyRetention,
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
