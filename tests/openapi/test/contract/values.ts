/**
 * The shapes of values docs/api.md names (ids, times, URLs) and its tables of codes, written from
 * its words. A second reading on purpose, apart from @genvideo/schema's constants: the checker
 * must not take the contract from the code it judges.
 */

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A task or account id: a UUID v4 in lower case. */
export const isUuidV4 = (value: unknown): boolean => typeof value === "string" && UUID_V4.test(value);

/** ISO 8601 in UTC, and a real moment (no 25th hour, no 31 February). */
export function isUtcTime(value: unknown): value is string {
  if (typeof value !== "string" || !UTC_TIME.test(value)) return false;
  const time = new Date(value);
  return !Number.isNaN(time.getTime()) && time.toISOString().slice(0, 19) === value.slice(0, 19);
}

/** An absolute http: or https: URL. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.host !== "";
  } catch {
    return false;
  }
}

export const isEventId = (value: unknown): boolean =>
  typeof value === "string" && /^msg_[0-9a-f]{32}$/.test(value);

export const isRequestId = (value: unknown): boolean =>
  typeof value === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(value);

export const isWholeNumber = (value: unknown, min: number, max = Number.POSITIVE_INFINITY): boolean =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** The error codes and their statuses, from the table of docs/api.md#errors. */
export const API_ERROR_STATUSES: Record<string, number> = {
  INVALID_REQUEST: 400,
  INVALID_CALLBACK_URL: 400,
  INSUFFICIENT_CREDITS: 402,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  DATABASE_UNAVAILABLE: 503,
};

/** The video download's codes (docs/api.md#video-download). */
export const VIDEO_ERROR_STATUSES: Record<string, number> = {
  INVALID_SIGNATURE: 403,
  URL_EXPIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RANGE_NOT_SATISFIABLE: 416,
};

/** The reason phrase each error status sends in `error`. */
export const REASON_PHRASES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export const AUTH_MESSAGES = [
  "Invalid API key",
  "Authorization header required",
  "Invalid authorization format. Use: Bearer <API_KEY>",
];

export const FAILURE_CODES = ["UNSAFE_CONTENT", "TIMEOUT", "GENERATION_FAILED"];
