import { BoundedCache } from "../bounded-cache.js";
import { constantTimeEqual } from "../crypto/web-crypto.js";
import type { CallerKeyRecord, StoreTransaction } from "../ports.js";
import { hashApiKey, isPlausibleApiKey } from "./api-key.js";

/**
 * Who is calling, once the key checked out. The account is named, not read:
 * routes that need its record (the balance) read it fresh, and a key's
 * account always exists (keys are created for an account, accounts are never
 * deleted), so authenticating costs one lookup, not two.
 */
export interface Caller {
  accountId: string;
  apiKey: CallerKeyRecord;
}

/** Why a request was not authenticated: no Authorization header, not `Bearer <key>`, or not a live key. */
export type AuthFailure = "missing" | "malformed" | "invalid";

export type Authentication = { ok: true; caller: Caller } | { ok: false; failure: AuthFailure };

/** The hash to look a presented key up by, or why there is nothing to look up. */
export type PresentedKey = { ok: true; hash: string } | { ok: false; failure: AuthFailure };

/**
 * A presented key's checksum verdict and hash: undefined hash means not
 * plausible (no lookup). Only this pure derivation is memoised, never whether
 * the key is live: revocation and expiry are read from the store every time.
 */
const keyDigests = new BoundedCache<string | undefined>(1024);

async function digestOf(key: string): Promise<string | undefined> {
  return keyDigests.get(key, async () => ((await isPlausibleApiKey(key)) ? hashApiKey(key) : undefined));
}

// RFC 9110: the scheme is case-insensitive; one or more spaces before the token.
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The first half of authentication, before any store access: a missing
 * header, then a malformed one, then a key that cannot be ours (bad checksum,
 * odd characters) are refused here; otherwise the key's SHA-256, from memory
 * when the key was seen lately (Web Crypto answers only on a later turn of
 * the event loop, so a repeat caller skips that wait): then the answer comes
 * at once, not as a promise.
 */
export function presentedKey(header: string | undefined): PresentedKey | Promise<PresentedKey> {
  if (header === undefined || header.trim() === "") return MISSING;
  const match = BEARER.exec(header.trim());
  if (!match) return MALFORMED;
  const key = match[1]!;
  const known = keyDigests.settled(key);
  return known ? verdictOf(known.value) : digestOf(key).then(verdictOf);
}

const MISSING: PresentedKey = { ok: false, failure: "missing" };
const MALFORMED: PresentedKey = { ok: false, failure: "malformed" };
const INVALID: PresentedKey = { ok: false, failure: "invalid" };

const verdictOf = (hash: string | undefined): PresentedKey =>
  hash === undefined ? INVALID : { ok: true, hash };

/**
 * The second half, inside the caller's transaction: the key with this hash,
 * if it is live at `now`. Unknown, revoked and expired keys are all the same
 * "Invalid API key", so nothing tells a guesser which.
 */
export async function callerByKeyHash(
  tx: StoreTransaction,
  hash: string,
  now: number,
): Promise<Authentication> {
  return liveCaller(await tx.getApiKeyByHash(hash), hash, now);
}

/**
 * The caller a key found by `hash` stands for, if the key is live at `now`:
 * the check `callerByKeyHash` makes, for a key read together with something
 * else (a status read's task, `StoreTransaction.getApiKeyAndTask`).
 */
export function liveCaller(apiKey: CallerKeyRecord | undefined, hash: string, now: number): Authentication {
  // The lookup is by hash already; comparing again in constant time keeps a
  // store whose index compares early-exit from leaking anything.
  if (!apiKey || !constantTimeEqual(apiKey.hash, hash)) return { ok: false, failure: "invalid" };
  // Any revocation counts at once, whatever clock the revoking process (the CLI) had.
  if (apiKey.revokedAt !== null) return { ok: false, failure: "invalid" };
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) return { ok: false, failure: "invalid" };
  return { ok: true, caller: { accountId: apiKey.accountId, apiKey } };
}
