import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/** The delivery log shows the start of each receiver's answer (a bounded excerpt, null before this). */
export const webhookResponseExcerpt: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("webhook_attempts").addColumn("response_excerpt", "text").execute();
  },
};
