import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The dashboard: key names and coalesced "last used" times, one-time sign-in
 * links and sessions (both stored as SHA-256 of the token, never the token),
 * and an index that serves an account's task list newest first by keyset
 * (it replaces `tasks_account`, whose every query it also serves; `created_at`
 * never changes, so it costs no write on a task's updates).
 */
export const dashboard: Migration = {
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
