import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";
import type { EngineEnv, HttpServices } from "./engine-env.js";

/** Spends one token of the caller's `bucket`; 429 with Retry-After when there is none. */
export function rateLimit(services: HttpServices, bucket: "create" | "read"): MiddlewareHandler<EngineEnv> {
  return async (c, next) => {
    if (!services.config.rateLimits.enabled) return next();
    const limiter = services.limiters[bucket];
    const decision = limiter.take(c.get("caller").apiKey.id);
    const headers = {
      "RateLimit-Policy": limiter.policyHeader(),
      RateLimit: limiter.rateLimitHeader(decision),
    };
    if (!decision.allowed) {
      throw new ApiError(
        "RATE_LIMITED",
        `Rate limit of ${limiter.perMinute} ${bucket === "create" ? "creations" : "reads"} per minute exceeded; retry in ${decision.retryAfterSeconds} s.`,
        { headers: { ...headers, "Retry-After": String(decision.retryAfterSeconds) } },
      );
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
