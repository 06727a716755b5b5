const marker = Symbol.for("genvideo.error");

/**
 * Options every SDK error accepts: the standard `cause`, plus the request id the service gave.
 *
 * @example
 * ```ts
 * throw new GenVideoError("video download failed", { cause: error, requestId });
 * ```
 */
export interface GenVideoErrorOptions extends ErrorOptions {
  /** The service's id of the request that failed, when a response carried one. */
  requestId?: string | undefined;
}

/**
 * Marks an error with a registered symbol. `Symbol.for` is shared by every realm and by
 * every copy of this package, so the mark survives where `instanceof` does not
 * (two installed versions, errors crossing a worker or a test-runner sandbox).
 */
export function markError(error: Error, symbol: symbol): void {
  Object.defineProperty(error, symbol, { value: true });
}

/** Whether `error` carries the mark `symbol`. */
export function hasMarker(error: unknown, symbol: symbol): boolean {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
}

/**
 * Base class of every error the SDK raises itself. `GenVideoError.isInstance(error)`
 * works across realms and duplicated copies of the package, where `instanceof` does not.
 * A caller's own `AbortSignal` is the exception: like `fetch`, the SDK then rejects with
 * `signal.reason` unchanged.
 *
 * @example
 * ```ts
 * import { GenVideoError } from "@genvideo/sdk";
 *
 * try {
 *   await client.getStatus(taskId);
 * } catch (error) {
 *   if (GenVideoError.isInstance(error)) console.error(error.message, error.requestId);
 *   else throw error;
 * }
 * ```
 */
export class GenVideoError extends Error {
  override name: string = "GenVideoError";
  /** The service's id of the failed request, to quote to support; `undefined` when there was no response. */
  readonly requestId: string | undefined;

  constructor(message: string, options?: GenVideoErrorOptions) {
    super(message, options);
    this.requestId = options?.requestId;
    markError(this, marker);
  }

  /**
   * Whether `error` is an error of this class, even from another realm or copy of the package.
   *
   * @example
   * ```ts
   * if (GenVideoError.isInstance(error)) console.log(error.requestId);
   * ```
   */
  static isInstance(error: unknown): error is GenVideoError {
    return hasMarker(error, marker);
  }
}
