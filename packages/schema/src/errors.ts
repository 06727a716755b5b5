/**
 * Schemas of the error bodies (docs/api.md#authentication and #errors).
 * Auth errors keep their exact two-field shape; every other error names a code.
 */
import * as z from "zod/mini";
import {
  AUTH_ERROR_MESSAGES,
  type AuthErrorMessage,
  ERROR_CODES,
  type ErrorCode,
  VIDEO_ERROR_CODES,
  type VideoErrorCode,
} from "./error-codes.js";
import { ValidationIssueSchema } from "./validation-issue.js";
import { RequestIdString } from "./wire-strings.js";

/**
 * HTTP 401 body, exactly `{ error: "Unauthorized", message }`: checked before anything else.
 *
 * @example
 * AuthErrorBodySchema.parse({ error: "Unauthorized", message: AUTH_ERROR_MESSAGES.invalidApiKey });
 */
export const AuthErrorBodySchema = z.object({
  error: z.literal("Unauthorized"),
  message: z.enum(Object.values(AUTH_ERROR_MESSAGES) as [AuthErrorMessage, ...AuthErrorMessage[]]),
});
export type AuthErrorBody = z.infer<typeof AuthErrorBodySchema>;

/**
 * Body of every non-auth error: `error` is the reason phrase of the status, `code` says which
 * error it is, `message` explains it to a person. Validation errors add `issues`; 5xx add `request_id`.
 *
 * @example
 * ErrorBodySchema.parse({ error: "Not Found", code: "NOT_FOUND", message: "Task not found." });
 */
export const ErrorBodySchema = z.object({
  error: z.string(),
  code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  /** Every violation, for `INVALID_REQUEST`. */
  issues: z.optional(z.array(ValidationIssueSchema)),
  /** Id of the failed request, for 5xx errors, to quote to the operator. */
  request_id: z.optional(RequestIdString),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** An error of the create endpoint: the error body plus `success: false`, like the create response. */
export const CreateErrorBodySchema = z.object({
  success: z.literal(false),
  ...ErrorBodySchema.shape,
});
export type CreateErrorBody = z.infer<typeof CreateErrorBodySchema>;

/** A refused create request: `INVALID_REQUEST` with every issue. */
export const ValidationErrorBodySchema = z.object({
  ...CreateErrorBodySchema.shape,
  code: z.literal("INVALID_REQUEST"),
  issues: z.array(ValidationIssueSchema),
});
export type ValidationErrorBody = z.infer<typeof ValidationErrorBodySchema>;

/**
 * Body of an error of the signed video download (403, 404, 416): the reason phrase, a code and a
 * sentence, like other errors.
 *
 * @example
 * VideoErrorBodySchema.parse({ error: "Forbidden", code: "URL_EXPIRED", message: "The video URL has expired." });
 */
export const VideoErrorBodySchema = z.object({
  error: z.string(),
  code: z.enum(Object.keys(VIDEO_ERROR_CODES) as [VideoErrorCode, ...VideoErrorCode[]]),
  message: z.string(),
});
export type VideoErrorBody = z.infer<typeof VideoErrorBodySchema>;
