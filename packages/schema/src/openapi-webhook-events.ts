/**
 * The webhook delivery records' part of `components.schemas`: one component per attempt outcome
 * and per event state, so that the document states the rules of docs/api.md#webhook-events.
 */
import type * as z from "zod/mini";
import { WEBHOOK_MAX_ATTEMPTS } from "./limits.js";
import {
  DeliveredWebhookEventSchema,
  FailedWebhookAttemptSchema,
  FailedWebhookEventSchema,
  PendingWebhookEventSchema,
  SucceededWebhookAttemptSchema,
  WebhookAttemptSchema,
  WebhookEventListSchema,
  WebhookEventSchema,
  WebhookRedeliveryResponseSchema,
} from "./webhook-events.js";

/** What the OpenAPI builder's registry holds for a schema: its component id, description and any JSON Schema keyword. */
export type Metadata = { id?: string; description?: string } & Record<string, unknown>;

/** Names a schema as a component of its own, with its description. */
export type AddComponent = (schema: z.core.$ZodType, id: string, description: string) => void;

export function describeWebhookEvents(registry: z.core.$ZodRegistry<Metadata>, add: AddComponent): void {
  add(
    SucceededWebhookAttemptSchema,
    "SucceededWebhookAttempt",
    "A try answered with a 2xx status: the event was delivered; error is null.",
  );
  add(
    FailedWebhookAttemptSchema,
    "FailedWebhookAttempt",
    "A try that failed: error says why (HTTP 502, redirect not followed (302), timeout, ECONNREFUSED, ...); " +
      "status_code is the answer's status when one came (a 2xx too, when its body did not arrive in time), " +
      "else null.",
  );
  add(
    WebhookAttemptSchema,
    "WebhookAttempt",
    "One try to deliver a webhook event: succeeded (a 2xx, error null) or failed (the reason in error).",
  );
  add(
    PendingWebhookEventSchema,
    "PendingWebhookEvent",
    `Attempts remain in this round (attempt_count 0 to ${WEBHOOK_MAX_ATTEMPTS - 1}); the next is due at next_attempt_at.`,
  );
  add(
    DeliveredWebhookEventSchema,
    "DeliveredWebhookEvent",
    "A 2xx came back: attempts holds a succeeded attempt; nothing more is sent.",
  );
  registry.add(DeliveredWebhookEventSchema.shape.attempts, {
    description: "Every attempt, oldest first; at least one succeeded.",
    contains: { $ref: "#/components/schemas/SucceededWebhookAttempt" },
  });
  add(
    FailedWebhookEventSchema,
    "FailedWebhookEvent",
    `All ${WEBHOOK_MAX_ATTEMPTS} attempts of the round failed; nothing more is sent unless it is redelivered.`,
  );
  registry.add(WebhookEventSchema, {
    id: "WebhookEvent",
    description: "A webhook event with every delivery attempt, one shape per delivery state.",
    discriminator: {
      propertyName: "state",
      mapping: {
        pending: "#/components/schemas/PendingWebhookEvent",
        delivered: "#/components/schemas/DeliveredWebhookEvent",
        failed: "#/components/schemas/FailedWebhookEvent",
      },
    },
  });
  add(WebhookEventListSchema, "WebhookEventList", "The webhook events of a task, oldest first.");
  add(
    WebhookRedeliveryResponseSchema,
    "WebhookRedeliveryResponse",
    "The latest event is pending again, with the same webhook-id.",
  );
}
