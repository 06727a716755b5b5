import type { FailureCode } from "@genvideo/schema";

/** The `message` of a completed task, at the status endpoint and in its webhook. */
export const COMPLETED_MESSAGE = "Video generated successfully";

/** The webhook body of spec 2.4, in its field order. */
export interface WebhookPayload {
  success: boolean;
  message: string;
  task_id: string;
  video_url: string | null;
}

/** The exact bytes (as a string) of a completed task's notification: stored once, signed and sent as-is. */
export function completedPayload(taskId: string, videoUrl: string): string {
  const payload: WebhookPayload = {
    success: true,
    message: COMPLETED_MESSAGE,
    task_id: taskId,
    video_url: videoUrl,
  };
  return JSON.stringify(payload);
}

/** The notification of a failed task: the failure code as message, no video. */
export function failedPayload(taskId: string, code: FailureCode): string {
  const payload: WebhookPayload = { success: false, message: code, task_id: taskId, video_url: null };
  return JSON.stringify(payload);
}
