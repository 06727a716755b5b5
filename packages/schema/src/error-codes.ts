/**
 * Error codes, their HTTP statuses and the exact auth messages (docs/api.md#errors and
 * #authentication). Plain constants, no zod: a server or client importing them pulls in nothing else.
 */

/** Every error code with the HTTP status it is sent with. */
export const ERROR_CODES = {
  /** Bad JSON, bad field, unknown field, bad combination of fields, task id not a UUID. */
  INVALID_REQUEST: 400,
  /** callback_url is not https, or its host is not a public address. */
  INVALID_CALLBACK_URL: 400,
  /** The account has fewer credits than the model costs. */
  INSUFFICIENT_CREDITS: 402,
  /** Unknown task, another account's task, or unknown route. */
  NOT_FOUND: 404,
  /** A known path with another method; `Allow` lists the methods it takes. */
  METHOD_NOT_ALLOWED: 405,
  /** A request with the same Idempotency-Key is still running. */
  IDEMPOTENCY_IN_PROGRESS: 409,
  /** The body is larger than `REQUEST_BODY_MAX_BYTES` (54 MiB). */
  PAYLOAD_TOO_LARGE: 413,
  /** A POST without `Content-Type: application/json`. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** The Idempotency-Key was used before with a different body. */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** Too many requests for this API key; see `Retry-After`. */
  RATE_LIMITED: 429,
  /** A fault of the service; the body carries the request id, never a stack. */
  INTERNAL_ERROR: 500,
  /** The server is starting (or cannot serve for a moment); see `Retry-After`. The body carries the request id. */
  SERVICE_UNAVAILABLE: 503,
  /**
   * The server's database did not answer (a network cut, a database restarting); see `Retry-After`.
   * Temporary: retry. A create answered so may have been made: retry it with its Idempotency-Key.
   */
  DATABASE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode];

/**
 * Error codes of the reference server's signed video download (not an API route: no API key, the
 * URL's signature is the credential), with their HTTP statuses.
 */
export const VIDEO_ERROR_CODES = {
  /** The signature is missing or does not match the URL. */
  INVALID_SIGNATURE: 403,
  /** The URL's `expires` time has passed. */
  URL_EXPIRED: 403,
  /** No video for this task (never made, or removed by retention). */
  NOT_FOUND: 404,
  /** The `Range` asked for starts beyond the video's end. */
  RANGE_NOT_SATISFIABLE: 416,
  /** A method other than GET and HEAD; `Allow` lists those two. */
  METHOD_NOT_ALLOWED: 405,
} as const;

export type VideoErrorCode = keyof typeof VIDEO_ERROR_CODES;

/** The `error` field of each error status: its RFC 9110 reason phrase. */
export const HTTP_REASON_PHRASES = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
} as const satisfies Record<ErrorStatus | 401, string>;

/** The `error` field of each status of the signed video download's errors. */
export const VIDEO_REASON_PHRASES = {
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  416: "Range Not Satisfiable",
} as const satisfies Record<(typeof VIDEO_ERROR_CODES)[VideoErrorCode], string>;

/** The exact messages of the three authentication failures (docs/api.md#authentication), sent with HTTP 401. */
export const AUTH_ERROR_MESSAGES = {
  invalidApiKey: "Invalid API key",
  missingAuthorization: "Authorization header required",
  malformedAuthorization: "Invalid authorization format. Use: Bearer <API_KEY>",
} as const;

export type AuthErrorMessage = (typeof AUTH_ERROR_MESSAGES)[keyof typeof AUTH_ERROR_MESSAGES];
