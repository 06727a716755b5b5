import { GenVideoError, type GenVideoErrorOptions, hasMarker, markError } from "./errors.js";

const connectionMarker = Symbol.for("genvideo.error.ConnectionError");
const timeoutMarker = Symbol.for("genvideo.error.RequestTimeoutError");
const validationMarker = Symbol.for("genvideo.error.ResponseValidationError");

/**
 * No response arrived: DNS failure, refused or reset connection, TLS failure. Retried for reads and
 * for creates that carry an idempotency key; `cause` holds the runtime's error.
 *
 * @example
 * ```ts
 * if (ConnectionError.isInstance(error)) console.error("service unreachable", error.cause);
 * ```
 */
export class ConnectionError extends GenVideoError {
  override name: string = "ConnectionError";

  constructor(message: string, options?: GenVideoErrorOptions) {
    super(message, options);
    markError(this, connectionMarker);
  }

  /** Whether `error` is a `ConnectionError`, across realms. */
  static override isInstance(error: unknown): error is ConnectionError {
    return hasMarker(error, connectionMarker);
  }
}

/**
 * One call (its retries included) took longer than its `timeout`.
 *
 * @example
 * ```ts
 * if (RequestTimeoutError.isInstance(error)) console.error(`no answer within ${error.timeout} ms`);
 * ```
 */
export class RequestTimeoutError extends GenVideoError {
  override name: string = "RequestTimeoutError";
  /** The time budget that ran out, in milliseconds. */
  readonly timeout: number;

  constructor(timeout: number, options?: GenVideoErrorOptions) {
    super(`Request timed out after ${timeout} ms`, options);
    this.timeout = timeout;
    markError(this, timeoutMarker);
  }

  /** Whether `error` is a `RequestTimeoutError`, across realms. */
  static override isInstance(error: unknown): error is RequestTimeoutError {
    return hasMarker(error, timeoutMarker);
  }
}

/**
 * A 2xx response whose body is not what the contract promises (not JSON, or a wrong field).
 *
 * @example
 * ```ts
 * if (ResponseValidationError.isInstance(error)) console.error(error.issue, error.body);
 * ```
 */
export class ResponseValidationError extends GenVideoError {
  override name: string = "ResponseValidationError";
  /** What was wrong, such as `task_id: expected string, got undefined`. */
  readonly issue: string;
  /** The parsed body, or its text when it was not JSON. */
  readonly body: unknown;

  constructor(issue: string, body: unknown, options?: GenVideoErrorOptions) {
    super(`Unexpected response from the service: ${issue}`, options);
    this.issue = issue;
    this.body = body;
    markError(this, validationMarker);
  }

  /** Whether `error` is a `ResponseValidationError`, across realms. */
  static override isInstance(error: unknown): error is ResponseValidationError {
    return hasMarker(error, validationMarker);
  }
}
