const STORE_UNAVAILABLE = Symbol.for("genvideo.engine.StoreUnavailableError");

/**
 * The store's database cannot be reached for now (a network cut, a restart, a
 * pool that cannot serve in time): a condition of the deployment, not a fault
 * of the service. A store throws it from `transaction`; the API answers it
 * with 503 `DATABASE_UNAVAILABLE` and `Retry-After` (docs/api.md#errors), and
 * never logs it as an error.
 *
 * @example
 * throw new StoreUnavailableError("PostgreSQL did not answer within 1 s", { cause: error });
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  /** Whole seconds a client should wait before asking again (`Retry-After`). */
  readonly retryAfterSeconds: number;

  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // A symbol brand instead of instanceof: the server and the engine may load two copies.
    Object.defineProperty(this, STORE_UNAVAILABLE, { value: true });
    this.retryAfterSeconds = options.retryAfterSeconds ?? DATABASE_RETRY_AFTER_SECONDS;
  }

  /** True for a StoreUnavailableError from any copy of this package. */
  static isInstance(value: unknown): value is StoreUnavailableError {
    return typeof value === "object" && value !== null && STORE_UNAVAILABLE in value;
  }
}

/**
 * `Retry-After` of a 503 `DATABASE_UNAVAILABLE`: long enough for a cut-off
 * process to notice that its database answers again, short enough that a
 * client is served within moments of the healing.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
