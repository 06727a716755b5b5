import type { CallerKeyRecord } from "../ports.js";

/**
 * Authentication a create leaves to its own statement (`Store.insertChargedTaskForKey`): the
 * presented key's hash, and the two ways its verdict is reached. The route concludes it before
 * it answers anything: with the key the create's statement found, or, when the request is
 * refused before its create (a 401 comes before any other refusal) or needs its account first
 * (a callback URL to check), by looking the key up on its own.
 */
export interface KeyCheck {
  /** The presented key's SHA-256, to find it by. */
  readonly hash: string;
  /** The create's statement found the key live: the caller is set. */
  authenticated(apiKey: CallerKeyRecord): void;
  /** The create's statement found no live key: the 401 to answer. */
  refused(): Response;
  /** By the key's own lookup: the 401 to answer, or undefined (the caller is set). */
  lookUp(): Promise<Response | undefined>;
}
