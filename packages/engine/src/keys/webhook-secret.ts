import { decodePaddedBase64, encodeBase64, WEBHOOK_SECRET_PREFIX } from "@genvideo/schema";
import { randomBytes } from "../crypto/web-crypto.js";

/** A new per-account signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${encodeBase64(randomBytes(24))}`;
}

/** The HMAC key bytes of a `whsec_` secret (undefined when it is not one). */
export function webhookSecretKey(secret: string): Uint8Array | undefined {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return undefined;
  return decodePaddedBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
}

/** Why a secret supplied at bootstrap is unusable, or undefined when it is fine. */
export function suppliedWebhookSecretProblem(secret: string): string | undefined {
  const key = webhookSecretKey(secret);
  if (!key) return "must be whsec_ followed by standard base64";
  // Standard Webhooks asks for 24 to 64 bytes; below 16 a secret is guessable.
  if (key.length < 16 || key.length > 64) return "must decode to 16 to 64 bytes";
  return undefined;
}
