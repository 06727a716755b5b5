import { TASK_STATUS_MESSAGES } from "@genvideo/schema";
import type { TaskRecord, TaskState, VideoStorage } from "../ports.js";
import { COMPLETED_MESSAGE } from "../webhooks/payload.js";

/** The status body of DESIGN.md: `video_url` only once the task is terminal. */
export interface TaskStatusBody {
  status: TaskState;
  task_id: string;
  message: string;
  video_url?: string | null;
  progress: number;
  created_at: string;
  updated_at: string;
}

const ACTIVE_MESSAGES = { queued: TASK_STATUS_MESSAGES.queued, processing: TASK_STATUS_MESSAGES.processing };

/**
 * How far along a task is, 0 to 100: generation time runs from creation to
 * `finishAt`; 99 at most until it has actually completed.
 */
export function progressOf(task: TaskRecord, now: number): number {
  if (task.state === "completed") return 100;
  if (task.state === "failed" || task.state === "queued") return task.progress;
  if (task.finishAt === null) {
    // A task that never finishes on its own ([[timeout]]) creeps towards its deadline.
    return Math.min(99, Math.floor(((now - task.createdAt) / (task.deadlineAt - task.createdAt)) * 100));
  }
  const span = Math.max(1, task.finishAt - task.createdAt);
  return Math.max(0, Math.min(99, Math.floor(((now - task.createdAt) / span) * 100)));
}

/** Renders a task for `GET /api/gen/status/:task_id` at service time `now`. */
export async function taskStatusBody(
  task: TaskRecord,
  now: number,
  videos: VideoStorage,
): Promise<TaskStatusBody> {
  const times = {
    created_at: new Date(task.createdAt).toISOString(),
    updated_at: new Date(task.updatedAt).toISOString(),
  };
  const head = { status: task.state, task_id: task.id };
  switch (task.state) {
    case "completed": {
      const videoUrl = task.videoKey === null ? null : await videos.signedUrl(task.videoKey, task.id, now);
      return { ...head, message: COMPLETED_MESSAGE, video_url: videoUrl, progress: 100, ...times };
    }
    case "failed":
      return {
        ...head,
        message: task.failureCode ?? "GENERATION_FAILED",
        video_url: null,
        progress: task.progress,
        ...times,
      };
    default:
      return { ...head, message: ACTIVE_MESSAGES[task.state], progress: progressOf(task, now), ...times };
  }
}
