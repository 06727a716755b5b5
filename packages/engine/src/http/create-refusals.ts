import { IDEMPOTENCY_KEY_MAX_LENGTH } from "@genvideo/schema";
import { InsufficientCreditsError } from "../credits/insufficient-credits-error.js";
import { type IdempotencyStart, isIdempotencyKey } from "../idempotency/idempotency.js";
import { ApiError } from "./api-error.js";

/**
 * The create endpoint's refusals that the domain reports in its own terms,
 * turned into statuses and bodies here: the domain below `http/` speaks no HTTP.
 */

/** The Idempotency-Key header's key; undefined when absent; 400 when malformed. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined || isIdempotencyKey(header)) return header;
  const rule = `1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`;
  throw new ApiError("INVALID_REQUEST", `Idempotency-Key must be ${rule}.`, {
    issues: [{ path: "Idempotency-Key", message: `must be ${rule}` }],
  });
}

/** 422 for a key used with another body, 409 (retry in a second) for one whose first request still runs. */
export function idempotencyRefusal(start: IdempotencyStart & { kind: "reused" | "in-progress" }): ApiError {
  if (start.kind === "reused")
    return new ApiError(
      "IDEMPOTENCY_KEY_REUSED",
      "This Idempotency-Key was already used with a different request body; use a new key for a new request.",
    );
  return new ApiError(
    "IDEMPOTENCY_IN_PROGRESS",
    "A request with this Idempotency-Key is still being processed; retry after it has finished.",
    { headers: { "Retry-After": "1" } },
  );
}

/** 402 for a task its account cannot pay for; any other error passes through unchanged. */
export function asInsufficientCredits(error: unknown): unknown {
  if (!InsufficientCreditsError.isInstance(error)) return error;
  const { cost, modelType, balance } = error;
  return new ApiError(
    "INSUFFICIENT_CREDITS",
    `This task costs ${cost} credit${cost === 1 ? "" : "s"} (${modelType}); the account has ${balance}.`,
  );
}
