import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The key-creation forms already used: a form posted again (a reload, the back
 * button, to another API process) creates and shows no second key. Wall-clock
 * times; rows older than a day go with the expired sessions.
 */
export const dashboardFormNonces: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("dashboard_form_nonces")
      .addColumn("nonce", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
