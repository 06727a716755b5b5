import type { Store, WebhookAttemptRecord, WebhookEventRecord } from "../ports.js";

/** An event with every attempt made to deliver it. */
export interface WebhookEventWithAttempts extends WebhookEventRecord {
  attempts: WebhookAttemptRecord[];
}

/** A task's notifications, oldest first, each with its attempts. */
export async function listTaskWebhookEvents(
  store: Store,
  taskId: string,
): Promise<WebhookEventWithAttempts[]> {
  return store.transaction(async (tx) => {
    const events = await tx.listWebhookEvents(taskId);
    const result: WebhookEventWithAttempts[] = [];
    for (const event of events) result.push({ ...event, attempts: await tx.listWebhookAttempts(event.id) });
    return result;
  });
}

/**
 * Sends a task's latest notification again, with the same `webhook-id` (it is
 * the same event: receivers that already have it can drop the copy) and a
 * fresh round of attempts. An event already waiting for its next attempt is
 * simply made due now. Undefined when the task has no notification.
 */
export async function redeliverTaskWebhook(
  store: Store,
  taskId: string,
  now: number,
): Promise<WebhookEventRecord | undefined> {
  return store.transaction(async (tx) => {
    const latest = (await tx.listWebhookEvents(taskId)).at(-1);
    if (!latest) return undefined;
    const patch =
      latest.state === "pending"
        ? { nextAttemptAt: Math.min(latest.nextAttemptAt ?? now, now) }
        : {
            state: "pending" as const,
            attemptCount: 0,
            nextAttemptAt: now,
            leaseOwner: null,
            leaseExpiresAt: null,
          };
    await tx.updateWebhookEvent(latest.id, patch);
    return { ...latest, ...patch };
  });
}

/** The wire form of an event (snake_case, ISO 8601 times) for `GET /api/gen/tasks/:task_id/webhooks`. */
export function webhookEventBody(event: WebhookEventWithAttempts): Record<string, unknown> {
  const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());
  return {
    id: event.id,
    url: event.url,
    state: event.state,
    attempt_count: event.attemptCount,
    next_attempt_at: iso(event.nextAttemptAt),
    created_at: iso(event.createdAt),
    attempts: event.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: iso(attempt.startedAt),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      error: attempt.error,
    })),
  };
}
