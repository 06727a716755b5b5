import { IDEMPOTENCY_KEY_MAX_LENGTH } from "@genvideo/schema";
import { canonicalJson, sha256Hex } from "../crypto/web-crypto.js";
import { ApiError } from "../http/api-error.js";
import type { Store } from "../ports.js";

/**
 * A request that claimed its key but never finished (its process died) would
 * answer 409 for a whole day; past this age its claim is dropped instead.
 */
const ABANDONED_AFTER_MS = 5 * 60_000;

/** What to do with a create request that carries an Idempotency-Key. */
export type IdempotencyStart = { kind: "proceed" } | { kind: "replay"; status: number; body: string };

/** The fingerprint a key is bound to: the body's JSON, key order and whitespace aside. */
export function requestFingerprint(body: unknown): Promise<string> {
  return sha256Hex(canonicalJson(body));
}

/**
 * Claims `key` for this request, or tells how the first request with it went:
 * replay its response (same body, finished), 422 (different body), 409 (same
 * body, still running). Only successful creations are kept (see `finish`); a
 * refused request releases its key so a corrected retry can use it.
 */
export async function startIdempotent(
  store: Store,
  accountId: string,
  key: string,
  fingerprint: string,
  now: number,
  ttlMs: number,
): Promise<IdempotencyStart> {
  return store.transaction(async (tx) => {
    const record = {
      accountId,
      key,
      requestHash: fingerprint,
      state: "in_progress" as const,
      responseStatus: null,
      responseBody: null,
      createdAt: now,
      expiresAt: now + ttlMs,
    };
    if (await tx.insertIdempotency(record)) return { kind: "proceed" };
    const existing = await tx.getIdempotency(accountId, key);
    if (!existing) throw new Error("idempotency record vanished inside a transaction");
    if (existing.requestHash !== fingerprint)
      throw new ApiError(
        "IDEMPOTENCY_KEY_REUSED",
        "This Idempotency-Key was already used with a different request body; use a new key for a new request.",
      );
    if (existing.state === "done" && existing.responseStatus !== null && existing.responseBody !== null)
      return { kind: "replay", status: existing.responseStatus, body: existing.responseBody };
    if (existing.createdAt + ABANDONED_AFTER_MS <= now) {
      await tx.deleteIdempotency(accountId, key);
      await tx.insertIdempotency(record);
      return { kind: "proceed" };
    }
    throw new ApiError(
      "IDEMPOTENCY_IN_PROGRESS",
      "A request with this Idempotency-Key is still being processed; retry after it has finished.",
      { headers: { "Retry-After": "1" } },
    );
  });
}

/** Releases a key whose request was refused, so the client may retry with it. */
export async function releaseIdempotent(store: Store, accountId: string, key: string): Promise<void> {
  await store.transaction((tx) => tx.deleteIdempotency(accountId, key));
}

/** Checks the header's shape; undefined when absent. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(header))
    throw new ApiError(
      "INVALID_REQUEST",
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
      {
        issues: [
          {
            path: "Idempotency-Key",
            message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`,
          },
        ],
      },
    );
  return header;
}
