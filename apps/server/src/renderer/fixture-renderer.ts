/**
 * GENVIDEO_RENDERER=fixture: every task gets the engine's tiny, valid H.264
 * MP4 (`tinyMp4Bytes()`, 64x36, 1 s, 2,177 bytes, the msw mock's video too)
 * instead of a synthetic render. For load tests and CI runs where what the
 * video shows does not matter but the CPU an encoder takes does. It goes
 * through the same storage, so URLs, signatures and Range requests behave
 * exactly as with real renders.
 */
import { writeFileSync } from "node:fs";
import { type Renderer, tinyMp4Bytes } from "@genvideo/engine";
import type { VideoFileStorage } from "../video/video-file-storage.js";

export function createFixtureRenderer(storage: Pick<VideoFileStorage, "stagingPath" | "put">): Renderer {
  const fixture = tinyMp4Bytes();
  return {
    async render(job, signal) {
      signal.throwIfAborted();
      const staging = await storage.stagingPath(job.taskId);
      // 2 KiB written at once: cheaper than three trips through the thread pool (open, write,
      // close), which at hundreds of renders a second were a tenth of a worker's CPU.
      writeFileSync(staging, fixture);
      return storage.put(job.taskId, staging);
    },
  };
}
