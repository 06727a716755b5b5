/**
 * How deep the queue is, read once per scrape in one statement. Each count
 * reads a partial index that holds only the rows it counts (migrations 0001
 * and 0003), so a scrape costs in proportion to the tasks queued or
 * processing and the webhooks pending, never to the tasks ever made:
 * - queued: `tasks_queued_created` (created_at, id) WHERE state = 'queued'.
 *   Its first entry is the oldest queued task, so MIN(created_at) is one index
 *   probe on both SQLite and PostgreSQL.
 * - processing: `tasks_processing_lease` WHERE state = 'processing'.
 * - pending webhooks: `webhook_events_pending_due` WHERE state = 'pending'.
 * SQLite uses a partial index when the query's WHERE implies the index's;
 * PostgreSQL picks among the partial indexes of unfinished tasks (index-only
 * while the visibility map is current: autovacuum keeps it so on these hot
 * tables, migration 0006). Both plans are pinned by tests.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../store/tables.js";

export interface QueueSnapshot {
  queued: number;
  processing: number;
  /** Service time the oldest queued task was created; null when none is queued. */
  oldestQueuedAt: number | null;
  webhooksPending: number;
}

interface SnapshotRow {
  queued: number | string;
  processing: number | string;
  oldest_queued_at: number | string | null;
  webhooks_pending: number | string;
}

/** The one statement a scrape runs (its plan is pinned by queue-snapshot.test.ts). */
export const QUEUE_SNAPSHOT_SQL = `
    select
      (select count(*) from tasks where state = 'queued') as queued,
      (select count(*) from tasks where state = 'processing') as processing,
      (select min(created_at) from tasks where state = 'queued') as oldest_queued_at,
      (select count(*) from webhook_events where state = 'pending') as webhooks_pending`;

export async function readQueueSnapshot(db: Kysely<Database>): Promise<QueueSnapshot> {
  const { rows } = await sql<SnapshotRow>`${sql.raw(QUEUE_SNAPSHOT_SQL)}`.execute(db);
  const row = rows[0];
  if (!row) throw new Error("the queue snapshot returned no row");
  return {
    queued: Number(row.queued),
    processing: Number(row.processing),
    oldestQueuedAt: row.oldest_queued_at === null ? null : Number(row.oldest_queued_at),
    webhooksPending: Number(row.webhooks_pending),
  };
}
