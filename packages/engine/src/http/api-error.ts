import {
  AUTH_ERROR_MESSAGES,
  type CreateErrorBody,
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  HTTP_REASON_PHRASES,
  type ValidationIssue,
} from "@genvideo/schema";

const API_ERROR = Symbol.for("genvideo.engine.ApiError");

/**
 * A refusal the client should see as-is: thrown anywhere under a route and
 * turned into the contract's error body by the app's error handler.
 */
export class ApiError extends Error {
  override name = "ApiError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: ValidationIssue[] | undefined;
  /** Extra response headers (Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { issues?: ValidationIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    // A symbol brand instead of instanceof: it survives duplicate copies of this package.
    Object.defineProperty(this, API_ERROR, { value: true });
    this.code = code;
    this.status = ERROR_CODES[code];
    this.issues = options.issues;
    this.headers = options.headers ?? {};
  }

  /** True for an ApiError from any copy of this package (cross-realm safe). */
  static isInstance(value: unknown): value is ApiError {
    return typeof value === "object" && value !== null && API_ERROR in value;
  }

  /** The wire body; create-endpoint errors add `success: false`. */
  toBody(options: { create: boolean }): ErrorBody | CreateErrorBody {
    return {
      ...(options.create ? { success: false as const } : {}),
      error: HTTP_REASON_PHRASES[this.status as keyof typeof HTTP_REASON_PHRASES] ?? "Error",
      code: this.code,
      message: this.message,
      ...(this.issues ? { issues: this.issues } : {}),
    };
  }
}

/**
 * The 500 body: the request id to quote, never a stack. Create-endpoint
 * errors add `success: false`.
 *
 * @example
 * Response.json(internalErrorBody("req_123", { create: false }), { status: 500 });
 */
export function internalErrorBody(
  requestId: string,
  options: { create: boolean },
): ErrorBody | CreateErrorBody {
  return serverErrorBody(
    "INTERNAL_ERROR",
    `Something went wrong on our side. Quote request id ${requestId} when reporting it.`,
    requestId,
    options,
  );
}

/** Why a 503 is sent, in the words of its body. */
const UNAVAILABLE_BECAUSE = {
  SERVICE_UNAVAILABLE: "The service is starting",
  DATABASE_UNAVAILABLE: "The service cannot reach its database for a moment",
} as const;

/**
 * The 503 body of a server that cannot serve yet (the reference server between
 * listening and the end of its startup sweep: `SERVICE_UNAVAILABLE`), or not
 * now (its database out of reach: `DATABASE_UNAVAILABLE`, docs/api.md#errors),
 * with the request id and when to retry. Send it with `Retry-After`.
 *
 * @example
 * Response.json(serviceUnavailableBody("req_123", 1, { create: false }), {
 *   status: 503,
 *   headers: { "Retry-After": "1" },
 * });
 */
export function serviceUnavailableBody(
  requestId: string,
  retryAfterSeconds: number,
  options: { create: boolean },
  code: keyof typeof UNAVAILABLE_BECAUSE = "SERVICE_UNAVAILABLE",
): ErrorBody | CreateErrorBody {
  return serverErrorBody(
    code,
    `${UNAVAILABLE_BECAUSE[code]}; retry in ${retryAfterSeconds} s.`,
    requestId,
    options,
  );
}

/** A 5xx body: the code's reason phrase and the request id to quote; `success: false` on creates. */
function serverErrorBody(
  code: "INTERNAL_ERROR" | "SERVICE_UNAVAILABLE" | "DATABASE_UNAVAILABLE",
  message: string,
  requestId: string,
  options: { create: boolean },
): ErrorBody | CreateErrorBody {
  return {
    ...(options.create ? { success: false as const } : {}),
    error: HTTP_REASON_PHRASES[ERROR_CODES[code]],
    code,
    message,
    request_id: requestId,
  };
}

/** The three auth refusals of docs/api.md#authentication, word for word, by cause. */
export const AUTH_MESSAGES: {
  readonly missing: typeof AUTH_ERROR_MESSAGES.missingAuthorization;
  readonly malformed: typeof AUTH_ERROR_MESSAGES.malformedAuthorization;
  readonly invalid: typeof AUTH_ERROR_MESSAGES.invalidApiKey;
} = {
  missing: AUTH_ERROR_MESSAGES.missingAuthorization,
  malformed: AUTH_ERROR_MESSAGES.malformedAuthorization,
  invalid: AUTH_ERROR_MESSAGES.invalidApiKey,
};

/** Why a request was not authenticated (the domain's reason; `AUTH_MESSAGES` words it). */
export type { AuthFailure } from "../keys/authenticate.js";
