/**
 * Success bodies of the create, status and account endpoints. Objects strip unknown fields when
 * parsed, so a client keeps working when the server adds a field.
 *
 * Two rules of docs/api.md#task-status relate values to each other or to the request, which no
 * schema can say: `created_at` is never after `updated_at`, and `task_id` is the id asked for.
 * The engine satisfies both, and the SDK checks the second.
 */
import * as z from "zod/mini";
import { FAILURE_CODES, TASK_CREATED_MESSAGE } from "./catalog.js";
import { AccountIdString, TaskIdString, TimestampString, UrlString } from "./wire-strings.js";

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

// Extensions every status may carry (docs/api.md#task-status); `progress` is set per status.
const timestamps = {
  created_at: z.optional(TimestampString),
  updated_at: z.optional(TimestampString),
};

// An unfinished task: no video yet, and at most 99 percent done.
const unfinished = {
  task_id: TaskIdString,
  message: z.string(),
  /** Absent until the task has finished. */
  video_url: z.optional(z.never()),
  progress: z.optional(z.number().check(z.minimum(0), z.maximum(99))),
  ...timestamps,
};

export const QueuedStatusResponseSchema = z.object({ status: z.literal("queued"), ...unfinished });

export const ProcessingStatusResponseSchema = z.object({ status: z.literal("processing"), ...unfinished });

export const CompletedStatusResponseSchema = z.object({
  status: z.literal("completed"),
  task_id: TaskIdString,
  message: z.string(),
  /** Signed download URL; works without an Authorization header until it expires. */
  video_url: UrlString,
  /** A completed task is done: 100. */
  progress: z.optional(z.literal(100)),
  ...timestamps,
});

export const FailedStatusResponseSchema = z.object({
  status: z.literal("failed"),
  task_id: TaskIdString,
  /** The failure code: `UNSAFE_CONTENT`, `TIMEOUT` or `GENERATION_FAILED`. */
  message: z.enum(FAILURE_CODES),
  video_url: z.null(),
  /** A failed task made no video: 0. */
  progress: z.optional(z.literal(0)),
  ...timestamps,
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
  account_id: AccountIdString,
  name: z.string(),
  credits: z.int().check(z.minimum(0)),
});
export type AccountResponse = z.infer<typeof AccountResponseSchema>;
