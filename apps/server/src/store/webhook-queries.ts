/** The webhook outbox: events, their leases and every recorded attempt. */
import type { WebhookAttemptRecord, WebhookEventRecord } from "@genvideo/engine";
import type { Selectable, Updateable } from "kysely";
import { QueryGroup } from "./query-group.js";
import {
  webhookAttemptFromRow,
  webhookAttemptToRow,
  webhookEventFromRow,
  webhookEventToRow,
} from "./rows.js";
import type { WebhookAttemptsTable, WebhookEventsTable } from "./tables.js";

type WebhookEventPatch = Partial<
  Pick<WebhookEventRecord, "state" | "attemptCount" | "nextAttemptAt" | "leaseOwner" | "leaseExpiresAt">
>;

type EventRow = Selectable<WebhookEventsTable>;

export class KyselyWebhookQueries extends QueryGroup {
  async insertWebhookEvent(event: WebhookEventRecord): Promise<void> {
    await this.changes(this.db.insertInto("webhook_events").values(webhookEventToRow(event)));
    if (event.state === "pending") this.context.onWork?.();
  }

  async getWebhookEvent(id: string): Promise<WebhookEventRecord | undefined> {
    // On PostgreSQL the row stays locked until the transaction ends: a sender that reads its lease and
    // then records an attempt cannot be overtaken in between by another sender's claim (fencing).
    const row = await this.first<EventRow>(
      this.db
        .selectFrom("webhook_events")
        .selectAll()
        .where("id", "=", id)
        .$if(this.context.rowLocks, (q) => q.forUpdate()),
    );
    return row && webhookEventFromRow(row);
  }

  async listWebhookEvents(taskId: string): Promise<WebhookEventRecord[]> {
    const rows = await this.rows<EventRow>(
      this.db
        .selectFrom("webhook_events")
        .selectAll()
        .where("task_id", "=", taskId)
        .orderBy("created_at")
        .orderBy("id"),
    );
    return rows.map(webhookEventFromRow);
  }

  /** Due pending events without a lease, or whose holder's lease ran out (that sender died). */
  async claimDueWebhookEvents(
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
  ): Promise<WebhookEventRecord[]> {
    if (limit <= 0) return [];
    const candidates = this.db
      .selectFrom("webhook_events")
      .select("id")
      .where("state", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_expires_at", "is", null), eb("lease_expires_at", "<=", now)]))
      .orderBy("next_attempt_at")
      .orderBy("id")
      .limit(limit);
    // Most reads find nothing due, and a plain read says so without the claim's write: on PostgreSQL
    // one round trip where the locking claim takes three (BEGIN, UPDATE, COMMIT); on SQLite without
    // taking the write lock, which a checkpoint truncating the WAL makes a writer wait for.
    if ((await this.rows(candidates)).length === 0) return [];
    const lease = { lease_owner: owner, lease_expires_at: leaseExpiresAt };
    const rows = await this.rows<EventRow>(
      this.context.rowLocks
        ? // PostgreSQL: locked in a CTE (never more rows than the limit), skipping what other senders hold.
          this.db
            .with("candidates", () => candidates.forUpdate().skipLocked())
            .updateTable("webhook_events")
            .set(lease)
            .from("candidates")
            .whereRef("webhook_events.id", "=", "candidates.id")
            .returningAll("webhook_events")
        : this.db.updateTable("webhook_events").set(lease).where("id", "in", candidates).returningAll(),
    );
    return rows
      .map(webhookEventFromRow)
      .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0) || (a.id < b.id ? -1 : 1));
  }

  async updateWebhookEvent(id: string, patch: WebhookEventPatch): Promise<void> {
    const set: Updateable<WebhookEventsTable> = {};
    if (patch.state !== undefined) set.state = patch.state;
    if (patch.attemptCount !== undefined) set.attempt_count = patch.attemptCount;
    if (patch.nextAttemptAt !== undefined) set.next_attempt_at = patch.nextAttemptAt;
    if (patch.leaseOwner !== undefined) set.lease_owner = patch.leaseOwner;
    if (patch.leaseExpiresAt !== undefined) set.lease_expires_at = patch.leaseExpiresAt;
    if (Object.keys(set).length === 0) return;
    await this.changes(this.db.updateTable("webhook_events").set(set).where("id", "=", id));
  }

  async insertWebhookAttempt(attempt: WebhookAttemptRecord): Promise<void> {
    await this.changes(this.db.insertInto("webhook_attempts").values(webhookAttemptToRow(attempt)));
  }

  async listWebhookAttempts(eventId: string): Promise<WebhookAttemptRecord[]> {
    const rows = await this.rows<Selectable<WebhookAttemptsTable>>(
      this.db.selectFrom("webhook_attempts").selectAll().where("event_id", "=", eventId).orderBy("attempt"),
    );
    return rows.map(webhookAttemptFromRow);
  }
}
