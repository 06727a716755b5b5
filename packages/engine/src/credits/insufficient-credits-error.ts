import type { ModelType } from "@genvideo/schema";

const INSUFFICIENT_CREDITS_ERROR = Symbol.for("genvideo.engine.InsufficientCreditsError");

/**
 * A task's cost is more than its account holds. Raised inside the creating
 * transaction so that the task inserted before the charge rolls back with it;
 * `http/` answers it as 402 INSUFFICIENT_CREDITS.
 */
export class InsufficientCreditsError extends Error {
  override name = "InsufficientCreditsError";
  readonly modelType: ModelType;
  readonly cost: number;
  /** The account's balance when the charge was refused. */
  readonly balance: number;

  constructor(modelType: ModelType, cost: number, balance: number) {
    super(`A ${modelType} task costs ${cost} credits; the account has ${balance}.`);
    // A symbol brand instead of instanceof: it survives duplicate copies of this package.
    Object.defineProperty(this, INSUFFICIENT_CREDITS_ERROR, { value: true });
    this.modelType = modelType;
    this.cost = cost;
    this.balance = balance;
  }

  /** True for an InsufficientCreditsError from any copy of this package (cross-realm safe). */
  static isInstance(value: unknown): value is InsufficientCreditsError {
    return typeof value === "object" && value !== null && INSUFFICIENT_CREDITS_ERROR in value;
  }
}
