/**
 * Response headers of the OpenAPI document (`components.headers`) and which responses carry them,
 * as the server sends them: `X-Request-Id` on every response, the RateLimit fields on every
 * answer of a rate-limited route, `Retry-After` on 429, 409 and 503, `WWW-Authenticate` on 401.
 */
import { IDEMPOTENT_REPLAYED_HEADER, RATE_LIMIT_HEADERS, REQUEST_ID_HEADER } from "./http.js";

type Json = Record<string, unknown>;

export const HEADER_COMPONENTS: Record<string, Json> = {
  RequestId: {
    description:
      "Id of this request, sent on every response: the client's own X-Request-Id when it sent a plain one " +
      "(1 to 128 of A-Z a-z 0-9 . _ : -), else a new req_<uuid>. Quote it when reporting a problem.",
    required: true,
    schema: { type: "string", minLength: 1 },
  },
  RateLimitPolicy: {
    description:
      'The limit of the route\'s bucket for this API key, e.g. "create";q=120;w=60. Sent on every answer of ' +
      "an authenticated request while rate limits are on.",
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'What is left of the bucket and when it is full again, e.g. "create";r=119;t=1. Sent with RateLimit-Policy.',
    schema: { type: "string" },
  },
  RetryAfter: {
    description: "Seconds to wait before retrying.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  WwwAuthenticate: {
    description: "The authentication scheme to use: Bearer.",
    required: true,
    schema: { type: "string", pattern: "^Bearer" },
  },
  IdempotentReplayed: {
    description:
      "Present when this is the stored response of an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] },
  },
};

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers of any answer of an authenticated, rate-limited route (success or error, but 401). */
export function apiResponseHeaders(status: number | "success"): Json {
  if (status === 401) {
    return { [REQUEST_ID_HEADER]: header("RequestId"), "WWW-Authenticate": header("WwwAuthenticate") };
  }
  // A server still starting answers before authentication and rate limits.
  if (status === 503) {
    return {
      [REQUEST_ID_HEADER]: header("RequestId"),
      [RATE_LIMIT_HEADERS.retryAfter]: header("RetryAfter"),
    };
  }
  const headers: Json = {
    [REQUEST_ID_HEADER]: header("RequestId"),
    [RATE_LIMIT_HEADERS.policy]: header("RateLimitPolicy"),
    [RATE_LIMIT_HEADERS.limit]: header("RateLimit"),
  };
  if (status === 429) {
    headers[RATE_LIMIT_HEADERS.retryAfter] = header("RetryAfter");
    headers[RATE_LIMIT_HEADERS.policy] = { ...HEADER_COMPONENTS.RateLimitPolicy, required: true };
    headers[RATE_LIMIT_HEADERS.limit] = { ...HEADER_COMPONENTS.RateLimit, required: true };
  }
  if (status === 409) headers[RATE_LIMIT_HEADERS.retryAfter] = header("RetryAfter");
  return headers;
}

/** Headers of the create endpoint's 200: a replay says so. */
export function createSuccessHeaders(): Json {
  return { ...apiResponseHeaders("success"), [IDEMPOTENT_REPLAYED_HEADER]: header("IdempotentReplayed") };
}

/** Headers of any answer of the video download. */
export function videoResponseHeaders(extra: Record<string, Json> = {}): Json {
  return { [REQUEST_ID_HEADER]: header("RequestId"), ...extra };
}
