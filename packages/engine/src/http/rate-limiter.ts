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

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets per API key, held in this process's memory: with several API
 * processes each enforces its own limit (the effective limit is the sum).
 * A bucket holds `perMinute` tokens and refills at `perMinute` per minute, so a
 * client may burst a minute's allowance and then continue at the steady rate.
 */
export class TokenBucketLimiter {
  readonly name: string;
  readonly perMinute: number;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(name: string, perMinute: number, clock: Clock) {
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
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)),
      resetSeconds: Math.ceil((this.perMinute - bucket.tokens) / ratePerMs / 1000),
    };
  }

  /** `RateLimit-Policy` value (draft-ietf-httpapi-ratelimit-headers): quota per 60 s window. */
  policyHeader(): string {
    return `"${this.name}";q=${this.perMinute};w=60`;
  }

  /** `RateLimit` value for a decision: remaining quota and seconds to reset. */
  rateLimitHeader(decision: RateLimitDecision): string {
    return `"${this.name}";r=${decision.remaining};t=${decision.resetSeconds}`;
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
