import type { WebhookAttemptOutcome, WebhookDelivery, WebhookSender } from "@genvideo/engine";

/** How the mock hands webhooks to the code under test. */
export type WebhookDeliveryMode = "fetch" | "record";

/** One webhook attempt as it left the mock: exactly the signed bytes and headers. */
export interface RecordedWebhook {
  /** The `webhook-id`, stable across the retries of one event. */
  id: string;
  /** The task the payload is about. */
  taskId: string;
  url: string;
  /** `content-type` and the Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
  headers: Record<string, string>;
  /** The body as sent (and signed): verify signatures against this string. */
  body: string;
  /** `body`, parsed: `{ success, message, task_id, video_url }`. */
  payload: { success: boolean; message: string; task_id: string; video_url: string | null };
  /** 1 for the first attempt of an event, 2 for its first retry, and so on. */
  attempt: number;
  /** The receiver's HTTP status; 200 in `record` mode; null when the request itself failed. */
  statusCode: number | null;
  /** Why the attempt failed (a non-2xx status or a network error), when it did. */
  error: string | null;
  /** A `Request` equal to the one sent, for `verifyWebhook(request, secret)`. */
  toRequest(): Request;
}

/** Bodies of receiver responses read at most (docs/webhooks.md#delivery-and-retries: 64 KiB), so a huge reply can't stall the mock. */
const RESPONSE_READ_LIMIT = 64 * 1024;

/**
 * The engine's `WebhookSender` for the mock: records every attempt, and in
 * `fetch` mode sends it with the global `fetch`. Under msw that fetch is
 * intercepted like any other request, so the consumer's own handler for the
 * callback URL (or a real local server) receives it; in `record` mode every
 * attempt counts as answered 200.
 */
export class RecordingWebhookSender implements WebhookSender {
  readonly deliveries: RecordedWebhook[];
  readonly mode: WebhookDeliveryMode;

  /** Records into `deliveries` (kept by the caller, so it survives a reset). */
  constructor(mode: WebhookDeliveryMode, deliveries: RecordedWebhook[]) {
    this.mode = mode;
    this.deliveries = deliveries;
  }

  async send(delivery: WebhookDelivery, signal: AbortSignal): Promise<WebhookAttemptOutcome> {
    const started = Date.now();
    let outcome: WebhookAttemptOutcome;
    if (this.mode === "record") {
      outcome = { ok: true, statusCode: 200, durationMs: 0 };
    } else {
      try {
        const response = await fetch(delivery.url, {
          method: "POST",
          headers: delivery.headers,
          body: delivery.body,
          redirect: "manual",
          signal,
        });
        await drain(response);
        const durationMs = Date.now() - started;
        outcome =
          response.status >= 200 && response.status < 300
            ? { ok: true, statusCode: response.status, durationMs }
            : { ok: false, statusCode: response.status, error: `HTTP ${response.status}`, durationMs };
      } catch (error) {
        outcome = {
          ok: false,
          statusCode: null,
          error: error instanceof Error ? error.message : String(error),
          durationMs: Date.now() - started,
        };
      }
    }
    this.deliveries.push(record(delivery, this.deliveries, outcome));
    return outcome;
  }
}

function record(
  delivery: WebhookDelivery,
  earlier: readonly RecordedWebhook[],
  outcome: WebhookAttemptOutcome,
): RecordedWebhook {
  const id = delivery.headers["webhook-id"] ?? "";
  const payload = JSON.parse(delivery.body) as RecordedWebhook["payload"];
  const headers = { ...delivery.headers };
  return {
    id,
    taskId: payload.task_id,
    url: delivery.url,
    headers,
    body: delivery.body,
    payload,
    attempt: earlier.filter((previous) => previous.id === id).length + 1,
    statusCode: outcome.statusCode,
    error: outcome.ok ? null : outcome.error,
    toRequest: () => new Request(delivery.url, { method: "POST", headers, body: delivery.body }),
  };
}

async function drain(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  try {
    while (read < RESPONSE_READ_LIMIT) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
