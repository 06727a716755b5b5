import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";
import type { EngineEnv, HttpServices } from "./engine-env.js";

/** Spends one token of the caller's `bucket`; 429 with Retry-After when there is none. */
export function rateLimit(services: HttpServices, bucket: "create" | "read"): MiddlewareHandler<EngineEnv> {
  return async (c, next) => {
    if (!services.config.rateLimits.enabled) return next();
    const limiter = services.limiters[bucket];
    const decision = await limiter.take(c.get("caller").apiKey.id);
    const headers = {
      "RateLimit-Policy": limiter.policyHeader(),
      RateLimit: limiter.rateLimitHeader(decision),
    };
    if (!decision.allowed) {
      throw rateLimitedError(bucket, limiter.perMinute, decision.retryAfterSeconds, headers);
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

/**
 * The 429 refusal of `bucket`, in the service's words, with `Retry-After`
 * added to the RateLimit `headers` given.
 *
 * @example
 * rateLimitedError("read", 600, 2, { RateLimit: '"read";r=0;t=2' }).toBody({ create: false });
 */
export function rateLimitedError(
  bucket: "create" | "read",
  perMinute: number,
  retryAfterSeconds: number,
  headers: Record<string, string>,
): ApiError {
  return new ApiError(
    "RATE_LIMITED",
    `Rate limit of ${perMinute} ${bucket === "create" ? "creations" : "reads"} per minute exceeded; retry in ${retryAfterSeconds} s.`,
    { headers: { ...headers, "Retry-After": String(retryAfterSeconds) } },
  );
}
