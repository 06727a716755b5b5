/**
 * Delivery records of webhook events, as the two webhook endpoints (list, redeliver) return them.
 */
import * as z from "zod/mini";
import { WEBHOOK_DELIVERY_STATES, WEBHOOK_REDELIVERY_MESSAGE } from "./catalog.js";
import { TaskIdString, TimestampString, UrlString } from "./wire-strings.js";

/** One try to deliver an event. */
export const WebhookAttemptSchema = z.object({
  /** 1 for the first try; the numbers go on across redeliveries. */
  attempt: z.int().check(z.minimum(1)),
  started_at: TimestampString,
  duration_ms: z.int().check(z.minimum(0)),
  /** HTTP status of the answer, or null when none came. */
  status_code: z.nullable(z.int()),
  /** Why the attempt failed without an answer (timeout, refused connection, ...), or null. */
  error: z.nullable(z.string()),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

/** One webhook event of a task with every attempt to deliver it. */
export const WebhookEventSchema = z.object({
  /** The `webhook-id` header value, stable across retries. */
  id: z.string(),
  /** The callback URL the event is sent to. */
  url: UrlString,
  state: z.enum(WEBHOOK_DELIVERY_STATES),
  /** Attempts of the current round; a redelivery starts a new round at 0. */
  attempt_count: z.int().check(z.minimum(0)),
  /** When the next attempt is due while pending, else null. */
  next_attempt_at: z.nullable(TimestampString),
  created_at: TimestampString,
  attempts: z.array(WebhookAttemptSchema),
});
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

/**
 * HTTP 200 body of `GET /api/gen/tasks/{task_id}/webhooks`: the task's events, oldest first.
 *
 * @example
 * const { events } = WebhookEventListSchema.parse(await response.json());
 * const failed = events.filter((event) => event.state === "failed");
 */
export const WebhookEventListSchema = z.object({
  task_id: TaskIdString,
  events: z.array(WebhookEventSchema),
});
export type WebhookEventList = z.infer<typeof WebhookEventListSchema>;

/**
 * HTTP 202 body of `POST /api/gen/tasks/{task_id}/webhooks/redeliver`: the latest event is
 * pending again and is delivered with the usual policy (up to 5 more attempts, 30 s apart) and the
 * same `webhook-id`.
 *
 * @example
 * const { event_id } = WebhookRedeliveryResponseSchema.parse(await response.json());
 */
export const WebhookRedeliveryResponseSchema = z.object({
  success: z.literal(true),
  message: z.literal(WEBHOOK_REDELIVERY_MESSAGE),
  event_id: z.string(),
});
export type WebhookRedeliveryResponse = z.infer<typeof WebhookRedeliveryResponseSchema>;
