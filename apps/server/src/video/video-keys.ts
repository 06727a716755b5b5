/** Task ids are UUIDs; anything else is refused before it can become a file name or an object key. */
const SAFE_TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The key a task's video is stored under, in every storage: `<task_id>.mp4`. */
export function videoKeyForTask(taskId: string): string {
  if (!SAFE_TASK_ID.test(taskId)) throw new Error(`Not a valid task id for a video: ${taskId}`);
  return `${taskId}.mp4`;
}

/** Refuses to sign a URL for a key that is not the task's own video. */
export function assertTaskVideo(videoKey: string, taskId: string): void {
  if (videoKey !== videoKeyForTask(taskId))
    throw new Error(`Video ${videoKey} does not belong to task ${taskId}`);
}
