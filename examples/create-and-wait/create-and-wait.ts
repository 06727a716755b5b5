/**
 * Creates a video task and waits for it with @genvideo/sdk, printing each step.
 *
 *   GENVIDEO_API_KEY=gen_sk_... node create-and-wait.ts "a red fox running through snow"
 *
 * GENVIDEO_BASE_URL says where the service is (default here: the reference server on this
 * machine, http://127.0.0.1:8787). Exits 0 with the video's URL, 1 when the task failed.
 */
import {
  AuthenticationError,
  ConnectionError,
  GenVideo,
  InsufficientCreditsError,
  TaskFailedError,
} from "@genvideo/sdk";

const prompt = process.argv[2] ?? "a red fox running through snow";

if (!process.env.GENVIDEO_API_KEY) {
  console.error("Set GENVIDEO_API_KEY to your key (the reference server prints one on its first start):");
  console.error("  export GENVIDEO_API_KEY=gen_sk_...");
  process.exit(2);
}

// The API key comes from GENVIDEO_API_KEY; nothing secret is written into the code.
const baseUrl = process.env.GENVIDEO_BASE_URL ?? "http://127.0.0.1:8787";
const client = new GenVideo({ baseUrl });

try {
  const task = await client.createTask({ prompt });
  console.log(`created task ${task.task_id}`);
  const video = await client.pollUntilDone(task, {
    // Print each change of status: queued, then processing with its progress.
    onProgress: (status) =>
      console.log(status.status === "processing" ? `processing ${status.progress ?? 0}%` : status.status),
  });
  console.log(`completed: ${video.video_url}`);
} catch (error) {
  // Each of the SDK's typed errors is an answer to act on, not a crash.
  if (TaskFailedError.isInstance(error)) {
    // UNSAFE_CONTENT, TIMEOUT or GENERATION_FAILED.
    console.error(`failed: ${error.code}`);
    process.exit(1);
  }
  if (AuthenticationError.isInstance(error)) {
    console.error(
      `The service at ${baseUrl} refused the key in GENVIDEO_API_KEY (401): check it, or make one:`,
    );
    console.error("  pnpm genvideo-server keys create");
    process.exit(2);
  }
  if (ConnectionError.isInstance(error)) {
    // Its message names the URL and what went wrong ("Could not reach http://…: fetch failed").
    console.error(`${error.message}. Is the server running?`);
    console.error("  GENVIDEO_TIME_SCALE=60 pnpm start   # or set GENVIDEO_BASE_URL");
    process.exit(2);
  }
  if (InsufficientCreditsError.isInstance(error)) {
    console.error(`Not enough credits for this task: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
