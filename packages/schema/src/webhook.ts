/** The webhook request body (docs/api.md#webhooks). */
import * as z from "zod/mini";
import { FAILURE_CODES } from "./catalog.js";
import { TaskIdString, UrlString } from "./wire-strings.js";

export const CompletedWebhookPayloadSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  task_id: TaskIdString,
  video_url: UrlString,
});

export const FailedWebhookPayloadSchema = z.object({
  success: z.literal(false),
  /** The failure code, for instance `UNSAFE_CONTENT` or `TIMEOUT`. */
  message: z.enum(FAILURE_CODES),
  task_id: TaskIdString,
  video_url: z.null(),
});

/**
 * Body POSTed to a task's `callback_url` when it finishes: `success` true with the video URL,
 * or false with the failure code and `video_url` null. Verify the signature before trusting it.
 *
 * @example
 * const payload = WebhookPayloadSchema.parse(JSON.parse(body));
 * if (payload.success) save(payload.task_id, payload.video_url);
 */
export const WebhookPayloadSchema = z.discriminatedUnion("success", [
  CompletedWebhookPayloadSchema,
  FailedWebhookPayloadSchema,
]);
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/**
 * The exact bytes (as a string) of a webhook body: the four fields in their documented order
 * (`success`, `message`, `task_id`, `video_url`), whatever the order or the extra keys of the
 * object given. Every webhook body the service sends, a task's or a test event's, is written here,
 * and the bytes signed are these bytes.
 *
 * @example
 * const body = webhookBody({ success: false, message: "TIMEOUT", task_id: taskId, video_url: null });
 * const headers = await signWebhook({ payload: body, secret });
 */
export function webhookBody(payload: WebhookPayload): string {
  const { success, message, task_id, video_url } = payload;
  return JSON.stringify({ success, message, task_id, video_url });
}
