import { type FailureCode, TASK_STATUS_MESSAGES, webhookBody } from "@genvideo/schema";

/** The `message` of a completed task, at the status endpoint and in its webhook. */
export const COMPLETED_MESSAGE: string = TASK_STATUS_MESSAGES.completed;

/** The exact bytes (as a string) of a completed task's notification: stored once, signed and sent as-is. */
export function completedPayload(taskId: string, videoUrl: string): string {
  return webhookBody({ success: true, message: COMPLETED_MESSAGE, task_id: taskId, video_url: videoUrl });
}

/** The notification of a failed task: the failure code as message, no video. */
export function failedPayload(taskId: string, code: FailureCode): string {
  return webhookBody({ success: false, message: code, task_id: taskId, video_url: null });
}
