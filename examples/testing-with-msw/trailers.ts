/**
 * Your application code: it makes a trailer video and says, in your app's own words, what
 * happened. The test beside it runs it against @genvideo/msw, without network or credits.
 */
import { type GenVideo, InsufficientCreditsError, TaskFailedError } from "@genvideo/sdk";

export type TrailerResult =
  | { ok: true; taskId: string; videoUrl: string }
  | { ok: false; taskId?: string; reason: "refused" | "try-again" | "out-of-credits" };

export interface TrailerOptions {
  /** Milliseconds between status reads (the SDK backs off from there). Tests make it short. */
  pollInterval?: number;
}

export async function makeTrailer(
  client: GenVideo,
  prompt: string,
  { pollInterval = 2_000 }: TrailerOptions = {},
): Promise<TrailerResult> {
  let taskId: string | undefined;
  try {
    const task = await client.createTask({ prompt, aspect_ratio: "9:16" });
    taskId = task.task_id;
    const video = await client.pollUntilDone(task, { interval: pollInterval });
    return { ok: true, taskId, videoUrl: video.video_url };
  } catch (error) {
    if (InsufficientCreditsError.isInstance(error)) return { ok: false, reason: "out-of-credits" };
    // The content was refused: asking again with the same prompt will not help.
    if (TaskFailedError.isInstance(error) && error.code === "UNSAFE_CONTENT")
      return { ok: false, ...(taskId ? { taskId } : {}), reason: "refused" };
    // TIMEOUT and GENERATION_FAILED were refunded: the same request may succeed later.
    if (TaskFailedError.isInstance(error))
      return { ok: false, ...(taskId ? { taskId } : {}), reason: "try-again" };
    throw error;
  }
}
