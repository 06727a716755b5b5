import { IDEMPOTENCY_KEY_MAX_LENGTH } from "@genvideo/schema";
import { canonicalJson, sha256Hex } from "../crypto/web-crypto.js";
import type { Store } from "../ports.js";

/**
 * A request that claimed its key but never finished (its process died) would
 * answer 409 for a whole day; past this age its claim is dropped instead.
 */
const ABANDONED_AFTER_MS = 5 * 60_000;

/**
 * What to do with a create request that carries an Idempotency-Key: go on (the
 * key is claimed), replay the first response, or refuse because the key was used
 * with another body (`reused`) or its first request is still running (`in-progress`).
 */
export type IdempotencyStart =
  | { kind: "proceed" }
  | { kind: "replay"; status: number; body: string }
  | { kind: "reused" }
  | { kind: "in-progress" };

/** The fingerprint a key is bound to: the body's JSON, key order and whitespace aside. */
export function requestFingerprint(body: unknown): Promise<string> {
  return sha256Hex(canonicalJson(body));
}

/**
 * Claims `key` for this request, or tells how the first request with it went:
 * replay its response (same body, finished), reused (different body), in
 * progress (same body, still running). Only successful creations are kept (see `finish`); a
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
  // Each step is one statement on its own, no transaction around them: a network cut between two
  // round trips then leaves no lock behind on the key for another process's request to wait on.
  for (let round = 0; round < 3; round++) {
    if (await store.transaction((tx) => tx.insertIdempotency(record), { singleWrite: true }))
      return { kind: "proceed" };
    const existing = await store.transaction((tx) => tx.getIdempotency(accountId, key), { readOnly: true });
    // Released since (its request was refused): claim it again.
    if (!existing) continue;
    if (existing.requestHash !== fingerprint) return { kind: "reused" };
    if (existing.state === "done" && existing.responseStatus !== null && existing.responseBody !== null)
      return { kind: "replay", status: existing.responseStatus, body: existing.responseBody };
    if (existing.createdAt + ABANDONED_AFTER_MS > now) return { kind: "in-progress" };
    // Abandoned: replaced only if it is still the claim read above, so two takers cannot both win.
    const replaced = await store.transaction(async (tx) => {
      const again = await tx.getIdempotency(accountId, key);
      if (again?.state !== "in_progress" || again.createdAt !== existing.createdAt) return false;
      await tx.deleteIdempotency(accountId, key);
      return tx.insertIdempotency(record);
    });
    if (replaced) return { kind: "proceed" };
  }
  return { kind: "in-progress" };
}

/** Releases a key whose request was refused, so the client may retry with it. */
export async function releaseIdempotent(store: Store, accountId: string, key: string): Promise<void> {
  await store.transaction((tx) => tx.deleteIdempotency(accountId, key), { singleWrite: true });
}

/** An Idempotency-Key is 1 to 255 visible ASCII characters. */
export function isIdempotencyKey(text: string): boolean {
  return text.length > 0 && text.length <= IDEMPOTENCY_KEY_MAX_LENGTH && /^[\x21-\x7e]+$/.test(text);
}
