import { decodePaddedBase64, encodeBase64, WEBHOOK_SECRET_PREFIX } from "@genvideo/schema";
import { randomBytes } from "../crypto/web-crypto.js";

/** A new per-account signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${encodeBase64(randomBytes(24))}`;
}

/**
 * The secrets that sign at service time `now`, newest first: the current one,
 * then any rotated out whose overlap has not ended. A delivery carries one
 * signature per secret, so a receiver holding either verifies it.
 */
export function liveWebhookSecrets<Secret extends { expiresAt: number | null; createdAt: number }>(
  secrets: readonly Secret[],
  now: number,
): Secret[] {
  return secrets
    .filter((secret) => secret.expiresAt === null || secret.expiresAt > now)
    .sort((a, b) => b.createdAt - a.createdAt);
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
