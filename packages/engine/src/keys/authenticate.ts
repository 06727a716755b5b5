import { BoundedCache } from "../crypto/bounded-cache.js";
import { constantTimeEqual } from "../crypto/web-crypto.js";
import type { AuthFailure } from "../http/api-error.js";
import type { AccountRecord, ApiKeyRecord, Store } from "../ports.js";
import { hashApiKey, isPlausibleApiKey } from "./api-key.js";

/** Who is calling, once the key checked out. */
export interface Caller {
  account: AccountRecord;
  apiKey: ApiKeyRecord;
}

export type Authentication = { ok: true; caller: Caller } | { ok: false; failure: AuthFailure };

/** A presented key's checksum verdict and hash: undefined hash means not plausible (no lookup). */
const keyDigests = new BoundedCache<string | undefined>(1024);

function digestOf(key: string): Promise<string | undefined> {
  return keyDigests.get(key, async () => ((await isPlausibleApiKey(key)) ? hashApiKey(key) : undefined));
}

// RFC 9110: the scheme is case-insensitive; one or more spaces before the token.
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Resolves an Authorization header to a caller, in the order of spec section 5:
 * missing header, then malformed, then a key that is not live (unknown,
 * revoked, expired, bad checksum: all the same "Invalid API key", so nothing
 * tells a guesser which). Revocation and expiry are read on every request.
 */
export async function authenticate(
  store: Store,
  header: string | undefined,
  now: number,
): Promise<Authentication> {
  if (header === undefined || header.trim() === "") return { ok: false, failure: "missing" };
  const match = BEARER.exec(header.trim());
  if (!match) return { ok: false, failure: "malformed" };
  const key = match[1]!;
  const hash = await digestOf(key);
  if (hash === undefined) return { ok: false, failure: "invalid" };
  const caller = await store.transaction(async (tx) => {
    const apiKey = await tx.getApiKeyByHash(hash);
    // The lookup is by hash already; comparing again in constant time keeps a
    // store whose index compares early-exit from leaking anything.
    if (!apiKey || !constantTimeEqual(apiKey.hash, hash)) return undefined;
    // Any revocation counts at once, whatever clock the revoking process (the CLI) had.
    if (apiKey.revokedAt !== null) return undefined;
    if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) return undefined;
    const account = await tx.getAccount(apiKey.accountId);
    return account && { account, apiKey };
  });
  return caller ? { ok: true, caller } : { ok: false, failure: "invalid" };
}
