import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * History retention (GENVIDEO_HISTORY_RETENTION): ended tasks by the time they
 * ended, so a batch reads the oldest few and nothing else (the index holds
 * ended tasks only, as many as retention keeps); `retired_tasks`, a line per
 * deleted task, so that its owner learns why it is gone, itself forgotten
 * after a second period. On PostgreSQL, the tables retention deletes from in
 * bulk are vacuumed after 2% of their rows changed instead of 20%, so the
 * space of deleted rows is reused before the tables grow.
 */
export const historyRetention: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("tasks_ended")
      .on("tasks")
      .columns(["updated_at", "id"])
      .where(sql.ref("state"), "in", sql`('completed', 'failed')`)
      .execute();
    await db.schema
      .createTable("retired_tasks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
      .addColumn("ended_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("retired_tasks_ended").on("retired_tasks").column("ended_at").execute();
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    for (const table of ["ledger_entries", "webhook_attempts", "task_requests", "retired_tasks"]) {
      await sql`alter table ${sql.table(table)} set (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)`.execute(
        db,
      );
    }
  },
};
