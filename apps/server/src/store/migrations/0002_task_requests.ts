import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Requests (images included, up to the 64 MiB body limit) move out of the
 * task rows. SQLite stores a row's columns in order and `request` came fifth:
 * reading any later column of an image task (its state, for a status read)
 * walked the megabytes of overflow pages in between, 4.7 ms a read for a
 * 5.6 MB request. Apart, the request is read only where a task is rendered.
 */
export const taskRequests: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("task_requests")
      .addColumn("task_id", "text", (c) => c.primaryKey().references("tasks.id"))
      .addColumn("request", "text", (c) => c.notNull())
      .execute();
    await sql`insert into task_requests (task_id, request) select id, request from tasks`.execute(db);
    await db.schema.alterTable("tasks").dropColumn("request").execute();
  },
};
