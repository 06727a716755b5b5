import { Hono } from "hono";
import { matchesNoneMatch, parseRange } from "./byte-range.js";
import type { ServedVideoStorage } from "./video-file-storage.js";

export interface VideoRoutesOptions {
  /**
   * Service time in ms, the same clock the engine signs `video_url` with (it
   * runs faster under GENVIDEO_TIME_SCALE). Default `Date.now`.
   */
  now?: () => number;
}

const VIDEO_FILE = /^([A-Za-z0-9_-]{1,128})\.mp4$/;

const MESSAGES = {
  INVALID_SIGNATURE:
    "The video URL's signature is missing or does not match; use the video_url from the task status.",
  URL_EXPIRED: "The video URL has expired; read the task status again for a fresh video_url.",
} as const;

/**
 * `GET`/`HEAD /videos/:task_id.mp4?expires=&signature=`: the signed download
 * (docs/api.md#task-status), without an Authorization header. The signature is checked
 * first, so an unsigned request learns nothing, not even whether the video
 * exists. Supports single byte ranges (206/416), ETag revalidation (304) and
 * `If-Range`, which is what browsers' `<video>` and download tools use.
 *
 * @example
 * const storage = new LocalVideoStorage({ dir, publicUrl, signingKey });
 * app.route("/", videoRoutes(storage, { now: () => clock.now() }));
 */
export function videoRoutes(storage: ServedVideoStorage, options: VideoRoutesOptions = {}): Hono {
  const now = options.now ?? Date.now;
  const app = new Hono();

  // Hono answers HEAD with the GET handler and drops the body; the handler still skips opening a stream.
  app.get("/videos/:file", async (c) => {
    const file = VIDEO_FILE.exec(c.req.param("file"));
    const taskId = file?.[1];
    if (!taskId) return c.json({ error: "Not Found", code: "NOT_FOUND", message: "No such video." }, 404);

    const check = storage.checkUrl(taskId, c.req.query("expires"), c.req.query("signature"), now());
    if (!check.ok)
      return c.json({ error: "Forbidden", code: check.code, message: MESSAGES[check.code] }, 403);

    const video = await storage.open(storage.keyForTask(taskId));
    if (!video) {
      return c.json({ error: "Not Found", code: "NOT_FOUND", message: "The video no longer exists." }, 404);
    }
    const expiresIn = Math.max(0, Number(c.req.query("expires")) - Math.floor(now() / 1000));
    const headers: Record<string, string> = {
      "Content-Type": "video/mp4",
      "Accept-Ranges": "bytes",
      ETag: video.etag,
      "Last-Modified": new Date(video.modifiedAt).toUTCString(),
      // The URL is a bearer credential until it expires: caches may keep it only that long, privately.
      "Cache-Control": `private, max-age=${expiresIn}`,
    };

    if (matchesNoneMatch(c.req.header("If-None-Match"), video.etag)) {
      await video.close();
      return c.body(null, 304, headers);
    }

    // If-Range names the version the client already holds part of; any other version gets sent whole.
    const ifRange = c.req.header("If-Range");
    const rangeApplies = !ifRange || ifRange === video.etag || ifRange === headers["Last-Modified"];
    const range = parseRange(rangeApplies ? c.req.header("Range") : undefined, video.size);

    if (range.kind === "unsatisfiable") {
      await video.close();
      return c.json(
        {
          error: "Range Not Satisfiable",
          code: "RANGE_NOT_SATISFIABLE",
          message: `The video has ${video.size} bytes.`,
        },
        416,
        { "Content-Range": `bytes */${video.size}`, "Accept-Ranges": "bytes" },
      );
    }

    const head = c.req.method === "HEAD";
    if (range.kind === "partial") {
      headers["Content-Range"] = `bytes ${range.start}-${range.end}/${video.size}`;
      headers["Content-Length"] = String(range.end - range.start + 1);
      if (head) {
        await video.close();
        return c.body(null, 206, headers);
      }
      return c.body(video.stream(range), 206, headers);
    }
    headers["Content-Length"] = String(video.size);
    if (head) {
      await video.close();
      return c.body(null, 200, headers);
    }
    return c.body(video.stream(), 200, headers);
  });

  return app;
}
