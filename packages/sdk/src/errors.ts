const marker = Symbol.for("genvideo.error");

/**
 * Base class of every error the SDK throws. `GenVideoError.isInstance(error)`
 * works across realms and duplicated copies of the package, where `instanceof` does not.
 */
export class GenVideoError extends Error {
  override name: string = "GenVideoError";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    Object.defineProperty(this, marker, { value: true });
  }

  static isInstance(error: unknown): error is GenVideoError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
