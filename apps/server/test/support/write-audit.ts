/**
 * Who wrote what, recorded by PostgreSQL itself: triggers on the tables a
 * worker writes (tasks, webhook events, webhook attempts) add a row per
 * write with the writer's `application_name` (each server process names its
 * connections after its lease owner id) and the row's lease and state before
 * and after. For an attempt, "before" is the lease its event had when the
 * attempt was recorded. A test-only addition to a test database.
 */
import type pg from "pg";

export interface AuditedWrite {
  at: Date;
  application_name: string;
  table_name: string;
  kind: "insert" | "update";
  row_id: string;
  lease_before: string | null;
  lease_after: string | null;
  state_before: string | null;
  state_after: string | null;
}

export async function installWriteAudit(db: pg.Client): Promise<void> {
  await db.query(AUDIT_SQL);
}

/** The database's clock now: audit times are compared with it, never with this process's. */
export async function databaseNow(db: pg.Client): Promise<Date> {
  return (await db.query<{ at: Date }>("select clock_timestamp() as at")).rows[0]!.at;
}

/**
 * Writes by one process (named by its lease owner id) since `since`, to rows
 * it held before and lost meanwhile, that it had no right to make. It may
 * claim such a row anew (a queued task, an event whose lease ran out) and
 * then write under that new lease. Without a lease, any worker may end a task
 * whose time has come (complete it, fail it, time it out) or hand back a task
 * whose holder's lease ran out, fenced by the holder it saw. Anything else (a
 * lease renewed, a video recorded, an attempt recorded on a row it no longer
 * holds, or any write under its old lease) was made on the strength of a
 * lease it had lost.
 */
export async function writesWithoutLease(
  db: pg.Client,
  owner: string,
  since: Date,
  lostRowIds: readonly string[],
): Promise<AuditedWrite[]> {
  const { rows } = await db.query<AuditedWrite>(
    "select * from genvideo_audit where application_name = $1 and at > $2 and row_id = any($3) order by at",
    [owner, since, lostRowIds],
  );
  const claimedAnew = new Set<string>();
  return rows.filter((write) => {
    if (write.kind === "update" && write.lease_before !== owner && write.lease_after === owner) {
      claimedAnew.add(write.row_id);
      return false;
    }
    if (write.lease_before === owner) return !claimedAnew.has(write.row_id);
    const ended = write.state_after === "completed" || write.state_after === "failed";
    const handedBack = write.state_after === "queued" && write.lease_after === null;
    return !(write.table_name === "tasks" && write.state_before === "processing" && (ended || handedBack));
  });
}

/** Every write to one row (a task, an event with its attempts), oldest first. */
export async function writesTo(db: pg.Client, rowId: string): Promise<AuditedWrite[]> {
  const { rows } = await db.query<AuditedWrite>(
    "select * from genvideo_audit where row_id = $1 order by at",
    [rowId],
  );
  return rows;
}

/** Every task's writes that moved it from an active state into a terminal one. */
export async function terminalTransitions(db: pg.Client): Promise<AuditedWrite[]> {
  const { rows } = await db.query<AuditedWrite>(
    `select * from genvideo_audit
      where table_name = 'tasks' and state_before in ('queued', 'processing')
        and state_after in ('completed', 'failed')`,
  );
  return rows;
}

const AUDIT_SQL = `
create table genvideo_audit (
  at timestamptz not null default clock_timestamp(),
  application_name text not null default current_setting('application_name'),
  table_name text not null,
  kind text not null,
  row_id text not null,
  lease_before text,
  lease_after text,
  state_before text,
  state_after text
);
create function genvideo_audit_write() returns trigger language plpgsql as $$
declare
  row_id text;
  lease_before text;
  lease_after text;
  state_before text;
  state_after text;
begin
  -- PL/pgSQL resolves new.<field> when it runs a statement, even in a branch not taken:
  -- each table's fields are read under its own IF only.
  if tg_table_name = 'webhook_attempts' then
    row_id := new.event_id;
    select lease_owner, state into lease_before, state_before from webhook_events where id = new.event_id;
  else
    row_id := new.id;
    lease_after := new.lease_owner;
    state_after := new.state;
    if tg_op = 'UPDATE' then
      lease_before := old.lease_owner;
      state_before := old.state;
    end if;
  end if;
  insert into genvideo_audit (table_name, kind, row_id, lease_before, lease_after, state_before, state_after)
  values (tg_table_name, lower(tg_op), row_id, lease_before, lease_after, state_before, state_after);
  return null;
end $$;
create trigger audit after insert or update on tasks
  for each row execute function genvideo_audit_write();
create trigger audit after insert or update on webhook_events
  for each row execute function genvideo_audit_write();
create trigger audit after insert on webhook_attempts
  for each row execute function genvideo_audit_write();
`;
