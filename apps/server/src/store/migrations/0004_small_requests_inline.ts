import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Small requests (text prompts, most of them) come back into the task row, as
 * its last column: a second row per create, on a random page of
 * `task_requests`, cost a quarter of the create throughput. Rows written
 * before keep their requests in `task_requests` (the column is null for them).
 */
export const smallRequestsInline: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("tasks").addColumn("request", "text").execute();
  },
};
