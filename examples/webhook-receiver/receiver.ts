/**
 * A webhook receiver for genvideo, as a Hono app: its `fetch` runs on Node (see server.ts),
 * Bun, Deno, Cloudflare Workers, or straight from a test.
 *
 * What every receiver should do, in order:
 * 1. verify the signature on the raw body (never on re-serialised JSON), with `verifyWebhook`;
 * 2. acknowledge a `webhook-id` it has seen already with a 2xx and do nothing more (a retry of an
 *    event you handled must not run twice);
 * 3. answer at once (within a second; the sender gives up after 30 s and tries again) and do the
 *    real work after the answer.
 */
import { verifyWebhook, type WebhookPayload, WebhookVerificationError } from "@genvideo/sdk";
import { Hono } from "hono";

export interface ReceiverOptions {
  /** The account's webhook signing secret, `whsec_...` (two during a rotation). */
  secret: string | readonly string[];
  /** Your work for one event: store the video URL, notify a user. Runs after the answer is sent. */
  onEvent: (payload: WebhookPayload, webhookId: string) => void | Promise<void>;
  /**
   * Ids already handled. In production keep them where your other state is (a unique column in
   * your database, a Redis set with a day's expiry): a process restart must not forget them.
   */
  seen?: Pick<Set<string>, "has" | "add">;
}

export function createReceiver({ secret, onEvent, seen = new Set<string>() }: ReceiverOptions): Hono {
  const app = new Hono();

  app.post("/webhooks/genvideo", async (c) => {
    let payload: WebhookPayload;
    try {
      // The Request form reads the raw body itself and checks the signature and its timestamp.
      payload = await verifyWebhook(c.req.raw, secret);
    } catch (error) {
      // Not from genvideo, altered, or too old to be a fresh delivery: refuse it.
      if (WebhookVerificationError.isInstance(error)) return c.text(`refused: ${error.reason}`, 400);
      throw error;
    }

    // Verified, so the header is there and is the one that was signed.
    const webhookId = c.req.header("webhook-id") ?? "";
    if (seen.has(webhookId)) return c.body(null, 204);
    seen.add(webhookId);

    // Answer first, work after: a slow handler would be retried as if it had failed.
    setTimeout(() => {
      Promise.resolve(onEvent(payload, webhookId)).catch((error: unknown) =>
        console.error(`webhook ${webhookId}: handling failed`, error),
      );
    }, 0);
    return c.body(null, 204);
  });

  return app;
}
