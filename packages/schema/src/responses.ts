/**
 * Success bodies of the create, status and account endpoints. Objects strip unknown fields when
 * parsed, so a client keeps working when the server adds a field.
 */
import * as z from "zod/mini";
import { FAILURE_CODES, TASK_CREATED_MESSAGE } from "./catalog.js";
import { TaskIdString, TimestampString, UrlString } from "./wire-strings.js";

/**
 * HTTP 200 body of `POST /api/gen/generate`.
 *
 * @example
 * const { task_id } = CreateTaskResponseSchema.parse(await response.json());
 */
export const CreateTaskResponseSchema = z.object({
  success: z.literal(true),
  message: z.literal(TASK_CREATED_MESSAGE),
  task_id: TaskIdString,
});
export type CreateTaskResponse = z.infer<typeof CreateTaskResponseSchema>;

// Extensions every status may carry (docs/api.md#task-status).
const statusExtensions = {
  /** Percent done, 0 to 100. */
  progress: z.optional(z.number().check(z.minimum(0), z.maximum(100))),
  created_at: z.optional(TimestampString),
  updated_at: z.optional(TimestampString),
};

export const QueuedStatusResponseSchema = z.object({
  status: z.literal("queued"),
  task_id: TaskIdString,
  message: z.string(),
  ...statusExtensions,
});

export const ProcessingStatusResponseSchema = z.object({
  status: z.literal("processing"),
  task_id: TaskIdString,
  message: z.string(),
  ...statusExtensions,
});

export const CompletedStatusResponseSchema = z.object({
  status: z.literal("completed"),
  task_id: TaskIdString,
  message: z.string(),
  /** Signed download URL; works without an Authorization header until it expires. */
  video_url: UrlString,
  ...statusExtensions,
});

export const FailedStatusResponseSchema = z.object({
  status: z.literal("failed"),
  task_id: TaskIdString,
  /** The failure code: `UNSAFE_CONTENT`, `TIMEOUT` or `GENERATION_FAILED`. */
  message: z.enum(FAILURE_CODES),
  video_url: z.null(),
  ...statusExtensions,
});

/**
 * HTTP 200 body of `GET /api/gen/status/{task_id}`, one shape per status: `video_url` is absent
 * while queued or processing, a URL when completed and null when failed.
 *
 * @example
 * const status = TaskStatusResponseSchema.parse(await response.json());
 * if (status.status === "completed") download(status.video_url);
 * else if (status.status === "failed") console.error(status.message); // "TIMEOUT"
 */
export const TaskStatusResponseSchema = z.discriminatedUnion("status", [
  QueuedStatusResponseSchema,
  ProcessingStatusResponseSchema,
  CompletedStatusResponseSchema,
  FailedStatusResponseSchema,
]);
export type TaskStatusResponse = z.infer<typeof TaskStatusResponseSchema>;

/**
 * HTTP 200 body of `GET /api/gen/account`: the account of the calling key.
 *
 * @example
 * const { credits } = AccountResponseSchema.parse(await response.json());
 */
export const AccountResponseSchema = z.object({
  account_id: z.string(),
  name: z.string(),
  credits: z.int().check(z.minimum(0)),
});
export type AccountResponse = z.infer<typeof AccountResponseSchema>;
