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
import { PRIVATE_FILE_MODE } from "../store/private-files.js";
import type { VideoFileStorage } from "../video/video-file-storage.js";

export function createFixtureRenderer(storage: Pick<VideoFileStorage, "stagingPath" | "put">): Renderer {
  const bytes = tinyMp4Bytes();
  return {
    async render(job, signal) {
      signal.throwIfAborted();
      const staging = await storage.stagingPath(job.taskId);
      // Written in the loop: three system calls (open, write, close) on a new private file, where a
      // copy through the thread pool took ten and two trips between threads, which together cost
      // a worker a third of its CPU per task in a drain.
      writeFileSync(staging, bytes, { mode: PRIVATE_FILE_MODE, flag: "wx" });
      return storage.put(job.taskId, staging);
    },
  };
}
