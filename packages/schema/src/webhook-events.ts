/**
 * Delivery records of webhook events, as the two webhook endpoints (list, redeliver) return them.
 * One shape per outcome, so the rules of docs/api.md#webhook-events hold for every tool that reads
 * the schemas: an attempt that got a 2xx succeeded and has no error, any other attempt has the
 * reason it failed; a `delivered` event has a successful attempt, a `failed` one spent all five.
 */
import * as z from "zod/mini";
import { WEBHOOK_REDELIVERY_MESSAGE } from "./catalog.js";
import { WEBHOOK_MAX_ATTEMPTS } from "./limits.js";
import { TaskIdString, TimestampString, UrlString, WebhookEventIdString } from "./wire-strings.js";

const attemptFields = {
  /** 1 for the first try; the numbers go on across redeliveries. */
  attempt: z.int().check(z.minimum(1)),
  started_at: TimestampString,
  duration_ms: z.int().check(z.minimum(0)),
};

/** A try answered with a 2xx: the event is delivered. */
export const SucceededWebhookAttemptSchema = z.object({
  ...attemptFields,
  /** The 2xx status of the answer. */
  status_code: z.int().check(z.minimum(200), z.maximum(299)),
  error: z.null(),
});

/**
 * A try that failed: answered with a status outside 2xx (redirects are not followed), an answer
 * that did not arrive whole in time (its status is kept, a 2xx too), or no answer at all
 * (`status_code` null: a timeout, a refused connection, ...).
 */
export const FailedWebhookAttemptSchema = z.object({
  ...attemptFields,
  /** The status of the answer, or null when none came. */
  status_code: z.nullable(z.int().check(z.minimum(100), z.maximum(599))),
  /** Why it failed: `HTTP 502`, `redirect not followed (302)`, `timeout`, `ECONNREFUSED`, ... */
  error: z.string().check(z.minLength(1)),
});

/** One try to deliver an event: succeeded (a 2xx, no error) or failed (the reason, and the status if an answer came). */
export const WebhookAttemptSchema = z.union([SucceededWebhookAttemptSchema, FailedWebhookAttemptSchema]);
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

const eventFields = {
  /** The `webhook-id` header value, stable across retries. */
  id: WebhookEventIdString,
  /** The callback URL the event is sent to. */
  url: UrlString,
  created_at: TimestampString,
  /** Every attempt, oldest first, redeliveries included. */
  attempts: z.array(WebhookAttemptSchema),
};

/** Attempts remain in this round; the next one is due at `next_attempt_at`. */
export const PendingWebhookEventSchema = z.object({
  ...eventFields,
  state: z.literal("pending"),
  /** Attempts of the current round; a redelivery starts a new round at 0. */
  attempt_count: z.int().check(z.minimum(0), z.maximum(WEBHOOK_MAX_ATTEMPTS - 1)),
  next_attempt_at: TimestampString,
});

/** A 2xx came back: `attempts` holds a succeeded attempt, and nothing more is sent. */
export const DeliveredWebhookEventSchema = z.object({
  ...eventFields,
  state: z.literal("delivered"),
  attempt_count: z.int().check(z.minimum(1), z.maximum(WEBHOOK_MAX_ATTEMPTS)),
  next_attempt_at: z.null(),
  attempts: z
    .array(WebhookAttemptSchema)
    .check(
      z.refine((attempts) => attempts.some((attempt) => attempt.error === null), "no succeeded attempt"),
    ),
});

/** Every attempt of the round failed; nothing more is sent unless it is redelivered. */
export const FailedWebhookEventSchema = z.object({
  ...eventFields,
  state: z.literal("failed"),
  attempt_count: z.literal(WEBHOOK_MAX_ATTEMPTS),
  next_attempt_at: z.null(),
});

/** One webhook event of a task with every attempt to deliver it, one shape per delivery state. */
export const WebhookEventSchema = z.discriminatedUnion("state", [
  PendingWebhookEventSchema,
  DeliveredWebhookEventSchema,
  FailedWebhookEventSchema,
]);
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
  event_id: WebhookEventIdString,
});
export type WebhookRedeliveryResponse = z.infer<typeof WebhookRedeliveryResponseSchema>;
