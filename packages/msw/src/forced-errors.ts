import {
  internalErrorBody,
  NOSNIFF_HEADERS,
  parseDuration,
  rateLimitedError,
  serviceUnavailableBody,
} from "@genvideo/engine";
import { requestIdFor } from "@genvideo/engine/rules";
import { RATE_LIMIT_CREATES_PER_MINUTE, RATE_LIMIT_STATUS_READS_PER_MINUTE } from "@genvideo/schema";

/** Which API requests a forced error applies to. */
export type ForcedErrorRoute = "create" | "status" | "any";

/** An error the mock answers with instead of the engine, to exercise a client's retry and error paths. */
export interface ForcedError {
  /**
   * 429 (`RATE_LIMITED` with `Retry-After` and `RateLimit` headers), 500
   * (`INTERNAL_ERROR` with a request id), 503 (`SERVICE_UNAVAILABLE` with a
   * request id and `Retry-After`, as the reference server answers while it starts) or `"network"` (the request fails: `fetch` rejects).
   */
  status: 429 | 500 | 503 | "network";
  /** How many matching requests get it. Default 1. */
  times?: number;
  /** `Retry-After` of a 429 or 503, as seconds or a duration (`"2s"`). Default 1 s. */
  retryAfter?: number | string;
  /** Default `"any"`: every API request (not video downloads). */
  route?: ForcedErrorRoute;
}

interface PendingError extends Required<Omit<ForcedError, "retryAfter">> {
  retryAfterSeconds: number;
}

/** The route a request path belongs to, for matching forced errors. */
export function routeOf(method: string, path: string): ForcedErrorRoute | undefined {
  if (method === "POST" && path === "/api/gen/generate") return "create";
  if (method === "GET" && path.startsWith("/api/gen/status/")) return "status";
  return path.startsWith("/api/") ? "any" : undefined;
}

/**
 * A queue of forced errors, consumed in order by the requests they match.
 * The bodies are the reference service's own (same codes, messages, headers).
 */
export class ForcedErrors {
  #pending: PendingError[] = [];

  add(error: ForcedError): void {
    const times = error.times ?? 1;
    if (!Number.isInteger(times) || times < 1)
      throw new RangeError(`times must be a whole number ≥ 1, got ${times}`);
    const retryAfter = error.retryAfter ?? 1;
    this.#pending.push({
      status: error.status,
      times,
      route: error.route ?? "any",
      retryAfterSeconds: Math.max(
        0,
        Math.ceil(typeof retryAfter === "number" ? retryAfter : parseDuration(retryAfter) / 1000),
      ),
    });
  }

  /** How many forced responses are still to come. */
  get remaining(): number {
    return this.#pending.reduce((total, error) => total + error.times, 0);
  }

  clear(): void {
    this.#pending = [];
  }

  /** The forced response for this request, if one is due (and uses it up). */
  take(method: string, path: string): Response | undefined {
    const route = routeOf(method, path);
    if (route === undefined) return undefined;
    const index = this.#pending.findIndex((error) => error.route === "any" || error.route === route);
    if (index === -1) return undefined;
    const error = this.#pending[index]!;
    if (--error.times === 0) this.#pending.splice(index, 1);
    return forcedResponse(error, route === "create");
  }
}

function forcedResponse(error: PendingError, create: boolean): Response {
  const requestId = requestIdFor(undefined);
  const headers: Record<string, string> = { "X-Request-Id": requestId, ...NOSNIFF_HEADERS };
  if (error.status === "network") return Response.error();
  if (error.status === 429) {
    const bucket = create ? "create" : "read";
    const perMinute = create ? RATE_LIMIT_CREATES_PER_MINUTE : RATE_LIMIT_STATUS_READS_PER_MINUTE;
    const rateLimited = rateLimitedError(bucket, perMinute, error.retryAfterSeconds, {
      "RateLimit-Policy": `"${bucket}";q=${perMinute};w=60`,
      RateLimit: `"${bucket}";r=0;t=${error.retryAfterSeconds}`,
    });
    return Response.json(rateLimited.toBody({ create }), {
      status: 429,
      headers: { ...headers, ...rateLimited.headers },
    });
  }
  if (error.status === 503) {
    return Response.json(serviceUnavailableBody(requestId, error.retryAfterSeconds, { create }), {
      status: 503,
      headers: { ...headers, "Retry-After": String(error.retryAfterSeconds) },
    });
  }
  return Response.json(internalErrorBody(requestId, { create }), { status: 500, headers });
}
