import { type FailureCode, TASK_STATUS_MESSAGES } from "@genvideo/schema";
import { isoTime } from "../iso-time.js";
import type { TaskStatusRecord, VideoStorage } from "../ports.js";
import { COMPLETED_MESSAGE } from "../webhooks/payload.js";

interface StatusBodyCommon {
  task_id: string;
  message: string;
  created_at: string;
  updated_at: string;
}

/**
 * The status body of docs/api.md#task-status, one shape per status: `video_url` is absent
 * while the task is active, a URL once completed and null once failed; `progress` is 100 once
 * completed and 0 once failed. A completed body without a URL cannot be written down.
 */
export type TaskStatusBody =
  | (StatusBodyCommon & { status: "queued" | "processing"; progress: number })
  | (StatusBodyCommon & { status: "completed"; video_url: string; progress: 100 })
  | (StatusBodyCommon & { status: "failed"; message: FailureCode; video_url: null; progress: 0 });

const ACTIVE_MESSAGES = { queued: TASK_STATUS_MESSAGES.queued, processing: TASK_STATUS_MESSAGES.processing };

/**
 * How far along a task is, 0 to 100: generation time runs from creation to
 * `finishAt`; 99 at most until it has actually completed. A failed task made
 * no video: 0 (docs/api.md, "Task status").
 */
export function progressOf(task: TaskStatusRecord, now: number): number {
  if (task.state === "completed") return 100;
  if (task.state === "failed") return 0;
  if (task.state === "queued") return task.progress;
  const span = progressSpan(task);
  return Math.max(0, Math.min(99, Math.floor(((now - task.createdAt) / span) * 100)));
}

/** The time progress runs over: to `finishAt`, or to the deadline for a task that never finishes on its own ([[timeout]]). */
function progressSpan(task: TaskStatusRecord): number {
  return Math.max(1, (task.finishAt ?? task.deadlineAt) - task.createdAt);
}

/**
 * When the status last changed as a reader sees it: the stored `updatedAt`, or, for a processing
 * task, the moment its derived `progress` reached its current value, if later. So `updated_at`
 * moves exactly when `progress` does, without a write per percent.
 */
export function updatedAtOf(task: TaskStatusRecord, now: number): number {
  if (task.state !== "processing") return task.updatedAt;
  const progress = progressOf(task, now);
  if (progress === 0) return task.updatedAt;
  const reached = task.createdAt + Math.ceil((progress / 100) * progressSpan(task));
  return Math.max(task.updatedAt, Math.min(reached, now));
}

/**
 * Renders a task for `GET /api/gen/status/:task_id` at service time `now`. Only a completed
 * task's body may wait (for its video URL, when not signed this minute yet); any other is
 * answered at once, without a promise to settle on the hot path of a poll.
 */
export function taskStatusBody(
  task: TaskStatusRecord,
  now: number,
  videos: VideoStorage,
): TaskStatusBody | Promise<TaskStatusBody> {
  const task_id = task.id;
  switch (task.state) {
    case "completed":
      return completedStatusBody(task, now, videos);
    case "failed":
      return {
        status: "failed",
        task_id,
        message: task.failureCode ?? "GENERATION_FAILED",
        video_url: null,
        progress: 0,
        created_at: isoTime(task.createdAt),
        updated_at: isoTime(task.updatedAt),
      };
    default:
      return {
        status: task.state,
        task_id,
        message: ACTIVE_MESSAGES[task.state],
        progress: progressOf(task, now),
        created_at: isoTime(task.createdAt),
        updated_at: isoTime(updatedAtOf(task, now)),
      };
  }
}

function completedStatusBody(
  task: TaskStatusRecord,
  now: number,
  videos: VideoStorage,
): TaskStatusBody | Promise<TaskStatusBody> {
  // Completion is only ever written with a video (see TaskWorker.finishDue). A row that says
  // otherwise is corrupt: a 500 with a request id, never a completed body without its URL.
  if (task.videoKey === null) throw new InconsistentTaskError(task.id, "is completed but has no video");
  const url = videos.signedUrl(task.videoKey, task.id, now);
  return typeof url === "string" ? completedBody(task, url) : url.then((ready) => completedBody(task, ready));
}

function completedBody(task: TaskStatusRecord, video_url: string): TaskStatusBody {
  return {
    status: "completed",
    task_id: task.id,
    message: COMPLETED_MESSAGE,
    video_url,
    progress: 100,
    created_at: isoTime(task.createdAt),
    updated_at: isoTime(task.updatedAt),
  };
}

/** A stored task whose fields contradict each other; the request that met it fails with INTERNAL_ERROR. */
export class InconsistentTaskError extends Error {
  constructor(taskId: string, problem: string) {
    super(`Task ${taskId} ${problem}: the stored record is inconsistent`);
    this.name = "InconsistentTaskError";
  }
}
