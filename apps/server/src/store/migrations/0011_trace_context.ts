import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The W3C trace context of the request that created a task, when tracing is
 * on (null otherwise): the worker that renders the task and sends its webhooks,
 * in another process, continues that trace. Copied to the task's webhook
 * events so that an attempt needs no read of its task. Nullable columns added
 * last: no table rewrite on either database, and on SQLite no existing column
 * moves (`request` stays after every column a status read needs).
 */
export const traceContext: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("tasks").addColumn("trace_parent", "text").execute();
    await db.schema.alterTable("webhook_events").addColumn("trace_parent", "text").execute();
  },
};
