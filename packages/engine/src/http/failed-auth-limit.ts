import type { Clock } from "../clock.js";
import { ApiError } from "./api-error.js";
import { rateLimitDecision } from "./rate-limiter.js";

/** How an attempt to authenticate went, told back to the limit that admitted it. */
export interface AuthAttempt {
  /** The 429 to answer instead of authenticating: the client has no failure left to spend. */
  refusal: ApiError | undefined;
  /** Counts the attempt once it is decided: a failure is spent, a success costs nothing. */
  ended(failed: boolean): void;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const MAX_TRACKED = 10_000;
const MAX_VALID_KEYS = 10_000;

/**
 * Failed authentications per client address, as a token bucket: a client may
 * fail `perMinute` times at once, then once per `60 / perMinute` seconds. A
 * client out of failures is refused with 429 before its key is looked at, so
 * neither a guess nor a store lookup comes of its requests, and others are
 * not affected, whatever it does. Where a request comes from is the
 * embedder's to say (`EngineConfig.clientAddress`): behind a proxy only the
 * embedder knows which `X-Forwarded-For` to believe.
 *
 * A client that failed lately has a failure reserved by each attempt while
 * its key is being checked (given back when the key is good): otherwise a
 * thousand requests in flight at once would each see the one failure that
 * came back and all spend it. A client with no failure yet reserves nothing,
 * so its first burst may pass the limit by the requests it has in flight,
 * once. A key that authenticated lately (by its hash) is never held back nor
 * reserves anything: a busy backend's hundred concurrent calls after a few
 * typos must not wait on each other, and only someone who has the key can
 * present it, so that tells a guesser nothing. Kept in this process's memory:
 * a failure costs no write, and several API processes each allow the limit.
 */
export class FailedAuthLimit {
  readonly #perMinute: number;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();
  /** Hashes of keys that authenticated lately, oldest first. */
  readonly #validKeys = new Set<string>();

  constructor(perMinute: number, clock: Clock) {
    this.#perMinute = perMinute;
    this.#clock = clock;
  }

  /** Starts an attempt of `client` to authenticate, with the presented key's hash when there is one. */
  begin(client: string, keyHash: string | undefined): AuthAttempt {
    const learn = (failed: boolean) => {
      if (keyHash === undefined) return;
      if (failed) this.#validKeys.delete(keyHash);
      else this.#rememberValid(keyHash);
    };
    const bucket = this.#buckets.get(client);
    if (!bucket || (keyHash !== undefined && this.#validKeys.has(keyHash))) {
      return {
        refusal: undefined,
        ended: (failed) => {
          if (failed) this.#spend(client);
          learn(failed);
        },
      };
    }
    this.#refill(bucket);
    if (bucket.tokens < 1) {
      const { retryAfterSeconds } = rateLimitDecision(bucket.tokens, false, this.#perMinute);
      const refusal = new ApiError(
        "RATE_LIMITED",
        `Too many failed authentications from this address; retry in ${retryAfterSeconds} s.`,
        { headers: { "Retry-After": String(retryAfterSeconds) } },
      );
      return { refusal, ended: () => undefined };
    }
    bucket.tokens -= 1;
    return {
      refusal: undefined,
      ended: (failed) => {
        // A failure spends what was reserved; a success gives it back.
        if (!failed) bucket.tokens = Math.min(this.#perMinute, bucket.tokens + 1);
        learn(failed);
      },
    };
  }

  #rememberValid(keyHash: string): void {
    this.#validKeys.delete(keyHash);
    if (this.#validKeys.size >= MAX_VALID_KEYS)
      this.#validKeys.delete(this.#validKeys.values().next().value!);
    this.#validKeys.add(keyHash);
  }

  #spend(client: string): void {
    let bucket = this.#buckets.get(client);
    if (!bucket) {
      if (this.#buckets.size >= MAX_TRACKED) this.#forgetRefilled();
      bucket = { tokens: this.#perMinute, updatedAt: this.#clock.now() };
      this.#buckets.set(client, bucket);
    }
    this.#refill(bucket);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
  }

  #refill(bucket: Bucket): void {
    const now = this.#clock.now();
    const refilled = bucket.tokens + (Math.max(0, now - bucket.updatedAt) * this.#perMinute) / 60_000;
    bucket.tokens = Math.min(this.#perMinute, refilled);
    bucket.updatedAt = now;
  }

  // A full bucket is the same as none: dropping them bounds memory to clients failing now.
  #forgetRefilled(): void {
    for (const [client, bucket] of this.#buckets) {
      this.#refill(bucket);
      if (bucket.tokens >= this.#perMinute) this.#buckets.delete(client);
    }
  }
}
