import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/** The delivery log shows what each attempt sent: its signature headers, as JSON (null before this). */
export const webhookRequestHeaders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("webhook_attempts").addColumn("request_headers", "text").execute();
    await db.schema.alterTable("webhook_test_events").addColumn("request_headers", "text").execute();
  },
};
