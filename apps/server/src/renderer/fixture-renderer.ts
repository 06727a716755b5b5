/**
 * GENVIDEO_RENDERER=fixture: every task gets the engine's tiny, valid H.264
 * MP4 (`tinyMp4Bytes()`, 64x36, 1 s, 2,177 bytes, the msw mock's video too)
 * instead of a synthetic render. For load tests and CI runs where what the
 * video shows does not matter but the CPU an encoder takes does. It goes
 * through the same storage, so URLs, signatures and Range requests behave
 * exactly as with real renders.
 */
import { copyFile, writeFile } from "node:fs/promises";
import { type Renderer, tinyMp4Bytes } from "@genvideo/engine";
import { PRIVATE_FILE_MODE } from "../store/private-files.js";
import type { VideoFileStorage } from "../video/video-file-storage.js";

/** The staging name of the one file each video is copied from (any task id's shape will do). */
const SOURCE_ID = "fixture-source";

export function createFixtureRenderer(storage: Pick<VideoFileStorage, "stagingPath" | "put">): Renderer {
  let source: Promise<string> | undefined;
  const sourceFile = () => {
    source ??= (async () => {
      const path = await storage.stagingPath(SOURCE_ID);
      // Each video is a copy of it, mode included.
      await writeFile(path, tinyMp4Bytes(), { mode: PRIVATE_FILE_MODE });
      return path;
    })();
    // A failed write is tried again by the next render.
    source.catch(() => {
      source = undefined;
    });
    return source;
  };
  return {
    async render(job, signal) {
      signal.throwIfAborted();
      const staging = await storage.stagingPath(job.taskId);
      // One trip through the thread pool (copy_file_range), off the event loop. Written in the
      // loop, the file cost it a millisecond per video on some file systems (ext4 without a
      // journal), taken from the requests a `role all` process serves meanwhile.
      try {
        await copyFile(await sourceFile(), staging);
      } catch (error) {
        // The source was swept with the staging folder's old files, or the folder removed: again.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        source = undefined;
        await copyFile(await sourceFile(), staging);
      }
      return storage.put(job.taskId, staging);
    },
  };
}
