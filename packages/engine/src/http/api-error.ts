import type { ValidationIssue } from "@genvideo/schema";

/** Error codes of the wire contract (DESIGN.md "Codes and statuses") with their HTTP status. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_CALLBACK_URL: 400,
  INSUFFICIENT_CREDITS: 402,
  NOT_FOUND: 404,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** HTTP reason phrases (RFC 9110) of the statuses the engine answers with: the `error` field. */
export const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
};

/** The body of every non-auth error. */
export interface ErrorBody {
  success?: false;
  error: string;
  code: ErrorCode;
  message: string;
  issues?: ValidationIssue[];
  request_id?: string;
}

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
    this.status = ERROR_STATUS[code];
    this.issues = options.issues;
    this.headers = options.headers ?? {};
  }

  /** True for an ApiError from any copy of this package (cross-realm safe). */
  static isInstance(value: unknown): value is ApiError {
    return typeof value === "object" && value !== null && API_ERROR in value;
  }

  /** The wire body; create-endpoint errors add `success: false`. */
  toBody(options: { create: boolean }): ErrorBody {
    return {
      ...(options.create ? { success: false as const } : {}),
      error: REASON_PHRASES[this.status] ?? "Error",
      code: this.code,
      message: this.message,
      ...(this.issues ? { issues: this.issues } : {}),
    };
  }
}

/** The three auth refusals of spec section 5, word for word. */
export const AUTH_MESSAGES = {
  missing: "Authorization header required",
  malformed: "Invalid authorization format. Use: Bearer <API_KEY>",
  invalid: "Invalid API key",
} as const;

export type AuthFailure = keyof typeof AUTH_MESSAGES;
