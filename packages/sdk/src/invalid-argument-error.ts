import { GenVideoError, hasMarker, markError } from "./errors.js";

const marker = Symbol.for("genvideo.error.InvalidArgumentError");

/**
 * A function of the SDK was called with a value it cannot work with: a bug in the calling code or its
 * configuration (say `Number(process.env.TOLERANCE)` of an unset variable), never a fault of the
 * service or of a request. The SDK throws it rather than guess: `verifyWebhook` with a `NaN`
 * tolerance would otherwise accept deliveries of any age.
 *
 * @example
 * ```ts
 * import { InvalidArgumentError } from "@genvideo/sdk";
 *
 * try {
 *   await verifyWebhook(body, headers, secret, { tolerance: Number(process.env.WEBHOOK_TOLERANCE_MS) });
 * } catch (error) {
 *   if (InvalidArgumentError.isInstance(error)) console.error(`fix ${error.argument}: ${error.message}`);
 *   throw error;
 * }
 * ```
 */
export class InvalidArgumentError extends GenVideoError {
  override name: string = "InvalidArgumentError";
  /** The option or parameter at fault, such as `tolerance`. */
  readonly argument: string;
  /** The value it was given. */
  readonly value: unknown;

  constructor(argument: string, value: unknown, expected: string) {
    super(`${argument} must be ${expected}; got ${String(value)}`);
    this.argument = argument;
    this.value = value;
    markError(this, marker);
  }

  /** Whether `error` is an `InvalidArgumentError`, across realms. */
  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasMarker(error, marker);
  }
}
