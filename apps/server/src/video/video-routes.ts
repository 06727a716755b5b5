import { serveVideoDownload } from "@genvideo/engine";
import { Hono } from "hono";
import type { ServedVideoStorage } from "./video-file-storage.js";

export interface VideoRoutesOptions {
  /**
   * Service time in ms, the same clock the engine signs `video_url` with (it
   * runs faster under GENVIDEO_TIME_SCALE). Default `Date.now`.
   */
  now?: () => number;
}

/**
 * `GET`/`HEAD /videos/:task_id.mp4?expires=&signature=`: the signed download
 * of docs/renderer.md (Downloading), served by the engine's `serveVideoDownload` (the
 * msw mock serves its videos with it too): 403 before anything else, 404,
 * single byte ranges (206/416), ETag revalidation (304) and `If-Range`.
 *
 * @example
 * const storage = new LocalVideoStorage({ dir, publicUrl, signingKey });
 * app.route("/", videoRoutes(storage, { now: () => clock.now() }));
 */
export function videoRoutes(storage: ServedVideoStorage, options: VideoRoutesOptions = {}): Hono {
  const now = options.now ?? Date.now;
  const app = new Hono();
  // Hono answers HEAD with the GET handler; the handler skips opening a stream for it.
  app.get("/videos/:file", (c) => {
    const at = now();
    return serveVideoDownload(c.req.raw, c.req.param("file"), {
      check: (taskId, expires, signature) => storage.checkUrl(taskId, expires, signature, at),
      open: (taskId) => storage.open(storage.keyForTask(taskId)),
      now: at,
    });
  });
  return app;
}
