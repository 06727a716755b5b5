/**
 * History retention's batch (`StoreTransaction.deleteEndedTasks`): the oldest
 * ended tasks past the age, found on `tasks_ended` (migration 0013), deleted
 * with everything that hangs off them, their ledger entries folded into one
 * carried-forward entry per account. A batch is a few statements over the
 * ids it found, so it costs what its limit allows, however long the history.
 */
import type { HistoryDeletion, RetiredTask } from "@genvideo/engine";
import { sql } from "kysely";
import { QueryGroup } from "./query-group.js";

interface EndedRow {
  id: string;
  account_id: string;
  updated_at: number | string;
}

interface FoldedRow {
  account_id: string;
  delta: number | string;
  created_at: number | string;
}

export class KyselyHistoryQueries extends QueryGroup {
  async deleteEndedTasks(endedBefore: number, forgetBefore: number, limit: number): Promise<HistoryDeletion> {
    let oldest = this.db
      .selectFrom("tasks")
      .select(["id", "account_id", "updated_at"])
      // Spelled as the index's predicate, literals included: SQLite uses a partial
      // index only when the query's WHERE visibly implies it (bound values do not).
      .where(sql.ref("state"), "in", sql`('completed', 'failed')`)
      .where("updated_at", "<", endedBefore)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("webhook_events")
              .select(sql.lit(1).as("one"))
              .whereRef("webhook_events.task_id", "=", "tasks.id")
              .where("webhook_events.state", "=", "pending"),
          ),
        ),
      )
      .orderBy("updated_at")
      .orderBy("id")
      .limit(limit);
    // Workers in other processes run batches too: each takes tasks the others have not locked.
    if (this.context.rowLocks) oldest = oldest.forUpdate().skipLocked();
    const ended = await this.rows<EndedRow>(oldest);
    const deleted =
      ended.length === 0
        ? { tasks: 0, ledgerEntries: 0, webhookEvents: 0, webhookAttempts: 0 }
        : await this.deleteTasks(ended);
    const forgotten = await this.changes(
      this.db
        .deleteFrom("retired_tasks")
        .where(
          "id",
          "in",
          this.db
            .selectFrom("retired_tasks")
            .select("id")
            .where("ended_at", "<", forgetBefore)
            .orderBy("ended_at")
            .limit(limit),
        ),
    );
    return { ...deleted, forgotten };
  }

  private async deleteTasks(ended: EndedRow[]): Promise<Omit<HistoryDeletion, "forgotten">> {
    const ids = ended.map((row) => row.id);
    const folded = await this.rows<FoldedRow>(
      this.db
        .selectFrom("ledger_entries")
        .select([
          "account_id",
          sql<number | string>`sum(delta)`.as("delta"),
          sql<number | string>`max(created_at)`.as("created_at"),
        ])
        .where("task_id", "in", ids)
        .groupBy("account_id"),
    );
    for (const row of folded) {
      await this.changes(
        this.db
          .insertInto("ledger_entries")
          .values({
            id: `carried-forward:${row.account_id}`,
            account_id: row.account_id,
            task_id: null,
            delta: Number(row.delta),
            reason: "carried_forward",
            created_at: Number(row.created_at),
          })
          .onConflict((conflict) =>
            conflict.column("id").doUpdateSet({
              delta: sql`ledger_entries.delta + excluded.delta`,
              created_at: sql`case when excluded.created_at > ledger_entries.created_at
                then excluded.created_at else ledger_entries.created_at end`,
            }),
          ),
      );
    }
    const ledgerEntries = await this.changes(
      this.db.deleteFrom("ledger_entries").where("task_id", "in", ids),
    );
    const webhookAttempts = await this.changes(
      this.db
        .deleteFrom("webhook_attempts")
        .where(
          "event_id",
          "in",
          this.db.selectFrom("webhook_events").select("id").where("task_id", "in", ids),
        ),
    );
    const webhookEvents = await this.changes(
      this.db.deleteFrom("webhook_events").where("task_id", "in", ids),
    );
    await this.changes(this.db.deleteFrom("task_requests").where("task_id", "in", ids));
    await this.changes(
      this.db
        .insertInto("retired_tasks")
        .values(
          ended.map((row) => ({ id: row.id, account_id: row.account_id, ended_at: Number(row.updated_at) })),
        )
        .onConflict((conflict) => conflict.column("id").doNothing()),
    );
    const tasks = await this.changes(this.db.deleteFrom("tasks").where("id", "in", ids));
    return { tasks, ledgerEntries, webhookEvents, webhookAttempts };
  }

  async getRetiredTask(id: string): Promise<RetiredTask | undefined> {
    const row = await this.first<{ id: string; account_id: string; ended_at: number | string }>(
      this.db.selectFrom("retired_tasks").selectAll().where("id", "=", id),
    );
    return row && { id: row.id, accountId: row.account_id, endedAt: Number(row.ended_at) };
  }
}
