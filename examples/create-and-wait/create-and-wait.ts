/**
 * Creates a video task and waits for it with @genvideo/sdk, printing each step.
 *
 *   GENVIDEO_API_KEY=gen_sk_... node create-and-wait.ts "a red fox running through snow"
 *
 * GENVIDEO_BASE_URL says where the service is (default here: the reference server on this
 * machine, http://127.0.0.1:8787). Exits 0 with the video's URL, 1 when the task failed.
 */
import { GenVideo, TaskFailedError } from "@genvideo/sdk";

const prompt = process.argv[2] ?? "a red fox running through snow";

if (!process.env.GENVIDEO_API_KEY) {
  console.error("Set GENVIDEO_API_KEY to your key (the reference server prints one on its first start):");
  console.error("  export GENVIDEO_API_KEY=gen_sk_...");
  process.exit(2);
}

// The API key comes from GENVIDEO_API_KEY; nothing secret is written into the code.
const client = new GenVideo({ baseUrl: process.env.GENVIDEO_BASE_URL ?? "http://127.0.0.1:8787" });

const task = await client.createTask({ prompt });
console.log(`created task ${task.task_id}`);

try {
  const video = await client.pollUntilDone(task, {
    // Print each change of status: queued, then processing with its progress.
    onProgress: (status) =>
      console.log(status.status === "processing" ? `processing ${status.progress ?? 0}%` : status.status),
  });
  console.log(`completed: ${video.video_url}`);
} catch (error) {
  // A failed task is an answer, not a crash: say why (UNSAFE_CONTENT, TIMEOUT, GENERATION_FAILED).
  if (TaskFailedError.isInstance(error)) {
    console.error(`failed: ${error.code}`);
    process.exit(1);
  }
  throw error;
}
