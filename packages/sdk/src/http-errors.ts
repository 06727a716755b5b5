import { GenVideoError, type GenVideoErrorOptions, hasMarker, markError } from "./errors.js";
import type { HttpErrorBody } from "./responses.js";

const httpMarker = Symbol.for("genvideo.error.HttpError");

/**
 * What an HTTP error is built from: the response's status, headers and parsed body.
 *
 * @example
 * ```ts
 * const error = new NotFoundError({ status: 404, headers: new Headers(), body: { code: "NOT_FOUND" } });
 * ```
 */
export interface HttpErrorDetails extends GenVideoErrorOptions {
  status: number;
  headers: Headers;
  body: HttpErrorBody;
}

/**
 * The service answered with a non-2xx status. Subclasses name the common cases; `code` is the
 * service's error code (`INVALID_REQUEST`, `RATE_LIMITED`, ...), `undefined` on 401.
 *
 * @example
 * ```ts
 * import { HttpError } from "@genvideo/sdk";
 *
 * try {
 *   await client.createTask({ prompt: "" });
 * } catch (error) {
 *   if (HttpError.isInstance(error)) console.error(error.status, error.code, error.body.issues);
 * }
 * ```
 */
export class HttpError extends GenVideoError {
  override name: string = "HttpError";
  /** HTTP status code of the response. */
  readonly status: number;
  /** The service's error code, such as `INVALID_REQUEST`; `undefined` when the body has none. */
  readonly code: string | undefined;
  /** Response headers, for `Retry-After`, `RateLimit` and the request id. */
  readonly headers: Headers;
  /** The error body's fields that were present (`error`, `code`, `message`, `issues`). */
  readonly body: HttpErrorBody;

  constructor({ status, headers, body, ...options }: HttpErrorDetails) {
    const text = body.message ?? body.error ?? "request failed";
    super(`${status}${body.code ? ` ${body.code}` : ""}: ${text}`, options);
    this.status = status;
    this.code = body.code;
    this.headers = headers;
    this.body = body;
    markError(this, httpMarker);
  }

  /** Whether `error` is an `HttpError` (or a subclass), across realms. */
  static override isInstance(error: unknown): error is HttpError {
    return hasMarker(error, httpMarker);
  }
}

const authenticationErrorMarker = Symbol.for("genvideo.error.AuthenticationError");

/**
 * 401: the API key is missing, malformed, unknown or revoked.
 *
 * @example
 * ```ts
 * if (AuthenticationError.isInstance(error)) console.error("check GENVIDEO_API_KEY");
 * ```
 */
export class AuthenticationError extends HttpError {
  override name: string = "AuthenticationError";

  constructor(details: HttpErrorDetails) {
    super(details);
    markError(this, authenticationErrorMarker);
  }

  /** Whether `error` is a `AuthenticationError`, across realms. */
  static override isInstance(error: unknown): error is AuthenticationError {
    return hasMarker(error, authenticationErrorMarker);
  }
}

const badRequestErrorMarker = Symbol.for("genvideo.error.BadRequestError");

/**
 * 400, 413, 415, and 422 other than key reuse: the request itself is wrong; `body.issues` says where.
 *
 * @example
 * ```ts
 * if (BadRequestError.isInstance(error)) console.error(error.body.issues);
 * ```
 */
export class BadRequestError extends HttpError {
  override name: string = "BadRequestError";

  constructor(details: HttpErrorDetails) {
    super(details);
    markError(this, badRequestErrorMarker);
  }

  /** Whether `error` is a `BadRequestError`, across realms. */
  static override isInstance(error: unknown): error is BadRequestError {
    return hasMarker(error, badRequestErrorMarker);
  }
}

const insufficientCreditsErrorMarker = Symbol.for("genvideo.error.InsufficientCreditsError");

/**
 * 402: the account has too few credits for this model.
 *
 * @example
 * ```ts
 * if (InsufficientCreditsError.isInstance(error)) notifyBilling();
 * ```
 */
export class InsufficientCreditsError extends HttpError {
  override name: string = "InsufficientCreditsError";

  constructor(details: HttpErrorDetails) {
    super(details);
    markError(this, insufficientCreditsErrorMarker);
  }

  /** Whether `error` is a `InsufficientCreditsError`, across realms. */
  static override isInstance(error: unknown): error is InsufficientCreditsError {
    return hasMarker(error, insufficientCreditsErrorMarker);
  }
}

const notFoundErrorMarker = Symbol.for("genvideo.error.NotFoundError");

/**
 * 404: no such task for this account (or no such route).
 *
 * @example
 * ```ts
 * if (NotFoundError.isInstance(error)) return null;
 * ```
 */
export class NotFoundError extends HttpError {
  override name: string = "NotFoundError";

  constructor(details: HttpErrorDetails) {
    super(details);
    markError(this, notFoundErrorMarker);
  }

  /** Whether `error` is a `NotFoundError`, across realms. */
  static override isInstance(error: unknown): error is NotFoundError {
    return hasMarker(error, notFoundErrorMarker);
  }
}

const conflictErrorMarker = Symbol.for("genvideo.error.ConflictError");

/**
 * 409 `IDEMPOTENCY_IN_PROGRESS` (after the retries ran out) or 422 `IDEMPOTENCY_KEY_REUSED`
 * (the same key was sent with a different body).
 *
 * @example
 * ```ts
 * if (ConflictError.isInstance(error) && error.code === "IDEMPOTENCY_KEY_REUSED") useFreshKey();
 * ```
 */
export class ConflictError extends HttpError {
  override name: string = "ConflictError";

  constructor(details: HttpErrorDetails) {
    super(details);
    markError(this, conflictErrorMarker);
  }

  /** Whether `error` is a `ConflictError`, across realms. */
  static override isInstance(error: unknown): error is ConflictError {
    return hasMarker(error, conflictErrorMarker);
  }
}

const serverErrorMarker = Symbol.for("genvideo.error.ServerError");

/**
 * 500 and above, after the retries ran out. `requestId` is what support needs. A 503
 * (`DATABASE_UNAVAILABLE`: the service cannot reach its database for now, or `SERVICE_UNAVAILABLE`:
 * it is starting) is temporary: `retryAfter` says when to try again.
 *
 * @example
 * ```ts
 * if (ServerError.isInstance(error) && error.status === 503) await sleep(error.retryAfter ?? 2000);
 * else if (ServerError.isInstance(error)) console.error("service fault", error.requestId);
 * ```
 */
export class ServerError extends HttpError {
  override name: string = "ServerError";
  /** Milliseconds the service asked the client to wait, from `Retry-After` (503); `undefined` without one. */
  readonly retryAfter: number | undefined;

  constructor(details: HttpErrorDetails & { retryAfter?: number | undefined }) {
    super(details);
    this.retryAfter = details.retryAfter;
    markError(this, serverErrorMarker);
  }

  /** Whether `error` is a `ServerError`, across realms. */
  static override isInstance(error: unknown): error is ServerError {
    return hasMarker(error, serverErrorMarker);
  }
}

const rateLimitMarker = Symbol.for("genvideo.error.RateLimitError");

/**
 * 429, after the retries ran out. `retryAfter` is the service's `Retry-After`, in milliseconds.
 *
 * @example
 * ```ts
 * if (RateLimitError.isInstance(error)) await sleep(error.retryAfter ?? 1000);
 * ```
 */
export class RateLimitError extends HttpError {
  override name: string = "RateLimitError";
  /** Milliseconds the service asked the client to wait, from `Retry-After`; `undefined` without one. */
  readonly retryAfter: number | undefined;

  constructor(details: HttpErrorDetails & { retryAfter: number | undefined }) {
    super(details);
    this.retryAfter = details.retryAfter;
    markError(this, rateLimitMarker);
  }

  /** Whether `error` is a `RateLimitError`, across realms. */
  static override isInstance(error: unknown): error is RateLimitError {
    return hasMarker(error, rateLimitMarker);
  }
}
