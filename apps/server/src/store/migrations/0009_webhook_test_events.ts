import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Test events sent from the dashboard, kept for its delivery log beside the
 * tasks' events: one attempt each (a test is sent once, never retried), and no
 * task, so not in `webhook_events` (whose rows belong to a task and are
 * delivered by the workers).
 */
export const webhookTestEvents: Migration = {
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
