/**
 * What the worker loop asks SQLite before a tick, to skip the ones that
 * would find nothing (see worker/tick-gate.ts). Both answers come from a
 * statement or two on indexes that hold only unfinished work, so they cost
 * microseconds where an idle tick costs milliseconds, with the event loop
 * blocked (node:sqlite is synchronous) and a status read waiting behind it.
 */
import type { SqliteConnection } from "./sqlite-connection.js";

export interface WorkSignals {
  /**
   * Changes whenever a row was written since the last call that returned the
   * same value: by this process (SQLite's `total_changes()`, which counts
   * every row this connection inserted, updated or deleted) or by another one
   * on the same file (`data_version`, which moves when another connection
   * commits: the CLI, a second server).
   */
  writeMark(): string;
  /**
   * The service time at which time-driven work is next due: `now` while any
   * task is queued or processing (claims, renders, finish times, deadlines,
   * leases: the loop ticks on its interval as it always has), else the next
   * webhook attempt, else undefined (nothing will come due without a write).
   */
  nextDueAt(now: number): number | undefined;
}

/**
 * The states are literals, as in the worker's own queries: SQLite uses the
 * partial indexes `tasks_unfinished_deadline` and `webhook_events_pending_due`
 * only when a query's condition is written like theirs.
 */
const OWN_WRITES = "select total_changes() as own";
const OTHERS_COMMITS = "pragma data_version";
const NEXT_DUE = `select
    exists (select 1 from tasks where state in ('queued', 'processing')) as active,
    (select min(next_attempt_at) from webhook_events where state = 'pending') as webhook_due`;

export function sqliteWorkSignals(connection: SqliteConnection): WorkSignals {
  return {
    writeMark() {
      const { own } = first(connection, OWN_WRITES);
      const { data_version: others } = first(connection, OTHERS_COMMITS);
      return `${own}:${others}`;
    },
    nextDueAt(now) {
      const { active, webhook_due: webhookDue } = first(connection, NEXT_DUE);
      if (active) return now;
      return webhookDue === null || webhookDue === undefined ? undefined : Number(webhookDue);
    },
  };
}

function first(connection: SqliteConnection, sql: string): Record<string, unknown> {
  const { statement, row } = connection.statement(sql);
  return row(statement.get());
}
