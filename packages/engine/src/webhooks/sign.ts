import { hmacSha256Base64 } from "../crypto/web-crypto.js";
import { webhookSecretKey } from "../keys/webhook-secret.js";

/** The Standard Webhooks headers of one attempt. */
export interface WebhookSignatureHeaders {
  "content-type": "application/json";
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Signs one attempt per Standard Webhooks: `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` under each secret's decoded bytes, space-separated, so
 * a receiver still on the old secret during a rotation verifies too.
 * `body` must be exactly the string that is sent.
 */
export async function signWebhook(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): Promise<WebhookSignatureHeaders> {
  const signed = `${id}.${timestampSeconds}.${body}`;
  const signatures: string[] = [];
  for (const secret of secrets) {
    const key = webhookSecretKey(secret);
    if (!key) throw new Error("a stored webhook secret is not whsec_<base64>");
    signatures.push(`v1,${await hmacSha256Base64(key, signed)}`);
  }
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}
