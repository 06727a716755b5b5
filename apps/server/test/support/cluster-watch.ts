/**
 * Watching a cluster of server processes through their shared PostgreSQL:
 * a test waits for a condition on the rows (polled, with a deadline), and
 * when it times out it says where the work stood and what each session was
 * doing, which is what one needs to tell a stuck process from a slow one.
 */
import type pg from "pg";

/**
 * Polls `countSql` (one row with a column `n`) until `done(n)` holds.
 * Fails after `timeoutMs` with the last count and a snapshot of the work.
 */
export async function waitForCount(
  db: pg.Client,
  countSql: string,
  done: (n: number) => boolean,
  { timeoutMs, what }: { timeoutMs: number; what: string },
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const n = Number((await db.query<{ n: unknown }>(countSql)).rows[0]?.n);
    if (done(n)) return;
    if (performance.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting for ${what} (last count ${n})\n${await workSnapshot(db)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Tasks and webhook events by state and holder, and every session not idle. */
export async function workSnapshot(db: pg.Client): Promise<string> {
  const table = async (title: string, sql: string) => {
    const { rows } = await db.query(sql);
    return `${title}:\n${rows.map((row) => `  ${JSON.stringify(row)}`).join("\n")}`;
  };
  const parts = await Promise.all([
    table("tasks", "select state, lease_owner, count(*)::int as n from tasks group by 1, 2 order by 1, 2"),
    table(
      "webhook events",
      "select state, lease_owner, count(*)::int as n from webhook_events group by 1, 2 order by 1, 2",
    ),
    table(
      "sessions not idle",
      `select application_name, state, wait_event_type, wait_event,
              round(extract(epoch from clock_timestamp() - xact_start)::numeric, 2) as transaction_s,
              left(query, 100) as query
         from pg_stat_activity
        where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()`,
    ),
  ]);
  return parts.join("\n");
}
