import { ApiError } from "./api-error.js";
import type { HttpServices, RouteHandler } from "./engine-env.js";
import { errorResponse } from "./error-response.js";

/**
 * Spends one token of the caller's `bucket` before `handle` runs: 429 with Retry-After when there
 * is none. Every answer after it carries the bucket's RateLimit headers, a refusal of `handle`'s
 * included.
 */
export function rateLimited(
  services: HttpServices,
  bucket: "create" | "read",
  handle: RouteHandler,
): RouteHandler {
  const limiter = services.limiters[bucket];
  return async (c) => {
    const decision = await limiter.take(c.get("caller").apiKey.id);
    const headers = {
      "RateLimit-Policy": limiter.policyHeader(),
      RateLimit: limiter.rateLimitHeader(decision),
    };
    if (!decision.allowed) {
      throw rateLimitedError(bucket, limiter.perMinute, decision.retryAfterSeconds, headers);
    }
    let response: Response;
    try {
      response = await handle(c);
    } catch (error) {
      response = errorResponse(c, error, services.config.logger);
    }
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
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
