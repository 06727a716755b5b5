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
 * Everything under `/videos/`: the signed download `GET`/`HEAD /videos/:task_id.mp4?expires=&signature=`
 * of docs/api.md#video-download, served by the engine's `serveVideoDownload` (the
 * msw mock serves its videos with it too): 405 with `Allow` for another method, 403
 * before anything that depends on the name, 404, single byte ranges (206/416), ETag
 * revalidation (304) and `If-Range`; JSON error bodies throughout.
 *
 * @example
 * const storage = new LocalVideoStorage({ dir, publicUrl, signingKey });
 * app.route("/", videoRoutes(storage, { now: () => clock.now() }));
 */
export function videoRoutes(storage: ServedVideoStorage, options: VideoRoutesOptions = {}): Hono {
  const now = options.now ?? Date.now;
  const app = new Hono();
  // Every method and path, so that none falls to Hono's plain-text 404; the name is the raw
  // rest of the path (`a/b.mp4` included), which only a signature can vouch for.
  app.all("/videos/*", (c) => {
    const at = now();
    return serveVideoDownload(c.req.raw, c.req.path.slice("/videos/".length), {
      check: (taskId, expires, signature) => storage.checkUrl(taskId, expires, signature, at),
      open: (taskId) => storage.open(storage.keyForTask(taskId)),
      now: at,
    });
  });
  return app;
}
