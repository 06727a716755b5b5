import type { Clock } from "../clock.js";

/** One bucket's verdict, with what the RateLimit headers report. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Tokens left after this request. */
  remaining: number;
  /** Whole seconds until a token is back (Retry-After when refused). */
  retryAfterSeconds: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
}

/**
 * Where a bucket lives: this process's memory (`TokenBucketLimiter`), or a
 * store shared by every API process (the server's PostgreSQL limiter), whose
 * `take` is then asynchronous.
 */
export interface RateLimiter {
  readonly name: string;
  readonly perMinute: number;
  /** Takes one token for `key` if there is one. */
  take(key: string): RateLimitDecision | Promise<RateLimitDecision>;
  /** `RateLimit-Policy` value (draft-ietf-httpapi-ratelimit-headers): quota per 60 s window. */
  policyHeader(): string;
  /** `RateLimit` value for a decision: remaining quota and seconds to reset. */
  rateLimitHeader(decision: RateLimitDecision): string;
}

/** Makes the limiter of one bucket (`create` or `read`) allowing `perMinute` requests per key. */
export type RateLimiterFactory = (name: "create" | "read", perMinute: number) => RateLimiter;

/**
 * The verdict and headers for a bucket of `perMinute` tokens holding
 * `tokens` after the request (`allowed`: one was taken), wherever it is kept.
 *
 * @example
 * rateLimitDecision(119, true, 120); // { allowed: true, remaining: 119, retryAfterSeconds: 0, resetSeconds: 1 }
 */
export function rateLimitDecision(tokens: number, allowed: boolean, perMinute: number): RateLimitDecision {
  const ratePerMs = perMinute / 60_000;
  return {
    allowed,
    remaining: Math.floor(tokens),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerMs / 1000)),
    resetSeconds: Math.ceil((perMinute - tokens) / ratePerMs / 1000),
  };
}

/**
 * Headers of a bucket, for any `RateLimiter`: extend it and implement `take`.
 */
export abstract class RateLimiterHeaders {
  abstract readonly name: string;
  abstract readonly perMinute: number;

  policyHeader(): string {
    return `"${this.name}";q=${this.perMinute};w=60`;
  }

  rateLimitHeader(decision: RateLimitDecision): string {
    return `"${this.name}";r=${decision.remaining};t=${decision.resetSeconds}`;
  }
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets per API key, held in this process's memory: with several API
 * processes each would enforce its own limit (the effective limit the sum),
 * so the server shares its buckets through PostgreSQL there.
 * A bucket holds `perMinute` tokens and refills at `perMinute` per minute, so a
 * client may burst a minute's allowance and then continue at the steady rate.
 */
export class TokenBucketLimiter extends RateLimiterHeaders implements RateLimiter {
  readonly name: string;
  readonly perMinute: number;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(name: string, perMinute: number, clock: Clock) {
    super();
    this.name = name;
    this.perMinute = perMinute;
    this.#clock = clock;
  }

  /** Takes one token for `key` if there is one. */
  take(key: string): RateLimitDecision {
    const now = this.#clock.now();
    const ratePerMs = this.perMinute / 60_000;
    const bucket = this.#buckets.get(key) ?? { tokens: this.perMinute, updatedAt: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + Math.max(0, now - bucket.updatedAt) * ratePerMs);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    this.#forgetFullBuckets(now);
    return rateLimitDecision(bucket.tokens, allowed, this.perMinute);
  }

  // A full bucket is the same as none: dropping them bounds memory to active keys.
  #forgetFullBuckets(now: number) {
    if (this.#buckets.size < 10_000) return;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * (this.perMinute / 60_000) >= this.perMinute)
        this.#buckets.delete(key);
    }
  }
}
