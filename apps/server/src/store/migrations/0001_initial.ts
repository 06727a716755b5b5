import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

export const initial: Migration = {
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
