import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The worker's queries each get an index that holds only the tasks they look
 * for. `tasks_state_created` held every task ever made, so SQLite preferred
 * its `state = ?` to the partial indexes of the sweeps and read and sorted
 * every unfinished task on every tick; the claim needs queued tasks only.
 */
export const queuedIndex: Migration = {
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
