/**
 * Where the engine's ids come from: task ids, webhook ids and request ids.
 * `crypto.randomUUID` unless an embedder injects its own source, such as the msw
 * mock's seeded one that gives a test the same task ids in every run. It must
 * return UUID v4 strings (task ids are UUIDs in the contract) and never repeat
 * within a store.
 */
export type RandomUUID = () => string;

export const cryptoRandomUUID: RandomUUID = () => crypto.randomUUID();

// A client's id is reused when it is short and plain, so one id follows a request across systems;
// anything else (longer, or characters a log line or a header could trip on) gets one of ours.
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request's id, answered in `X-Request-Id` and logged: the client's `X-Request-Id` when it is
 * 1 to 128 of `[A-Za-z0-9._:-]`, otherwise `req_<uuid>`. Every answer of the server and the
 * engine names its request this way, whichever part answers.
 *
 * @example
 * ```ts
 * requestIdFor("trace-42"); // "trace-42"
 * requestIdFor("a b"); // "req_5f0c2e7d-..."
 * ```
 */
export function requestIdFor(
  incoming: string | null | undefined,
  randomUUID: RandomUUID = cryptoRandomUUID,
): string {
  return incoming && CLIENT_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
}

/** A webhook event's `webhook-id`: `msg_` and 32 hex digits. */
export function webhookEventId(randomUUID: RandomUUID): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}

/**
 * A UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so
 * ids made later sort later. For the store's own rows (ledger entries), whose
 * ids no API response carries (only the CLI's JSON output shows them):
 * consecutive rows land side by side in the primary-key index instead of on a
 * random page each, which a database writes out per commit.
 *
 * @example
 * ```ts
 * timeOrderedId(); // "019aab1e-4c2f-7d3e-9b1a-5f0c2e7d8a41"
 * ```
 */
export function timeOrderedId(now: number = Date.now()): string {
  // A v4 UUID brings the random bits (and the variant) from the runtime's
  // buffered generator; the time and the version 7 replace its first 13 digits.
  const random = crypto.randomUUID();
  const time = Math.trunc(now).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
