/**
 * Standard Webhooks signing, the one implementation: the service's webhook dispatcher, the
 * dashboard's test event and customers' receiver tests (through the SDK) all sign here, and the
 * SDK's `verifyWebhook` checks against the same secret and content rules. Web Crypto only.
 */
import { decodeBase64, encodeBase64, isBase64 } from "./base64.js";
import { WEBHOOK_HEADERS, WEBHOOK_SECRET_PREFIX } from "./http.js";
import type { WebhookPayload } from "./webhook.js";

/**
 * One signing secret (`whsec_<base64>`), or several while a secret is being rotated.
 *
 * @example
 * ```ts
 * const secrets: WebhookSecret = [process.env.WEBHOOK_SECRET!, process.env.PREVIOUS_WEBHOOK_SECRET!];
 * ```
 */
export type WebhookSecret = string | readonly string[];

/**
 * Settings of `signWebhook`.
 *
 * @example
 * ```ts
 * await signWebhook({ payload: body, secret, id: "msg_1", timestamp: new Date("2026-01-01") });
 * ```
 */
export interface SignWebhookOptions {
  /** The body to sign; an object is signed as `JSON.stringify(payload)`, which is then the body to send. */
  payload: WebhookPayload | string | Uint8Array;
  /**
   * The secret, `whsec_<base64>`. Several (newest first) sign once each, space-separated in
   * `webhook-signature`, so a receiver still on the old secret during a rotation verifies too.
   */
  secret: WebhookSecret;
  /** The `webhook-id`. Default: `msg_` and a random UUID. */
  id?: string;
  /** Signing time, as a `Date` or milliseconds since the epoch. Default: now. */
  timestamp?: Date | number;
}

/**
 * The headers of a signed webhook request, ready for `fetch`.
 *
 * @example
 * ```ts
 * const headers: SignedWebhookHeaders = await signWebhook({ payload: body, secret });
 * await fetch(receiverUrl, { method: "POST", headers, body });
 * ```
 */
export type SignedWebhookHeaders = {
  "content-type": "application/json";
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

const encoder = new TextEncoder();

/**
 * The HMAC key bytes of a webhook secret: the base64 after `whsec_` (the prefix may be left out).
 * Throws on anything else: a broken secret is a deployment bug, not a bad webhook.
 */
export function webhookSecretBytes(secret: string): Uint8Array<ArrayBuffer> {
  // An unset environment variable arrives here as `undefined`: say so rather than fail obscurely.
  if (typeof secret !== "string") throw new TypeError("A webhook secret is required (`whsec_...`).");
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  const bytes = isBase64(encoded) ? decodeBase64(encoded) : undefined;
  if (!bytes?.length) throw new TypeError("A webhook secret must be `whsec_` followed by base64.");
  return bytes;
}

/** The bytes Standard Webhooks signs: `id.timestamp.body`, the body untouched. */
export function signedWebhookContent(
  id: string,
  timestamp: string,
  body: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return content;
}

/**
 * Signs a webhook per Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under
 * each secret. Send the returned headers with the payload as the body (`JSON.stringify(payload)`
 * when it is an object): the body must be exactly the bytes that were signed.
 *
 * @example
 * ```ts
 * import { signWebhook } from "@genvideo/sdk";
 *
 * const body = JSON.stringify({ success: true, message: "done", task_id: taskId, video_url: url });
 * const headers = await signWebhook({ payload: body, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
 * const response = await app.request("/hooks/genvideo", { method: "POST", headers, body });
 * ```
 */
export async function signWebhook(options: SignWebhookOptions): Promise<SignedWebhookHeaders> {
  const { payload, secret, id = `msg_${crypto.randomUUID()}`, timestamp = Date.now() } = options;
  const body =
    typeof payload === "string" || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
  const seconds = String(Math.floor(Number(timestamp) / 1000));
  const content = signedWebhookContent(id, seconds, typeof body === "string" ? encoder.encode(body) : body);
  const signatures: string[] = [];
  for (const one of [secret].flat()) {
    const key = await crypto.subtle.importKey(
      "raw",
      webhookSecretBytes(one),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    signatures.push(`v1,${encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, content)))}`);
  }
  return {
    "content-type": "application/json",
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: seconds,
    [WEBHOOK_HEADERS.signature]: signatures.join(" "),
  };
}
