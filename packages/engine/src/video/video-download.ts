import { NOSNIFF_HEADERS } from "../no-sniff.js";
import { matchesNoneMatch, parseRange } from "./byte-range.js";
import type { UrlCheck } from "./video-url-signer.js";

/** A stored video held open, so nothing (a retention sweep) pulls it away mid-response. */
export interface DownloadableVideo {
  size: number;
  /** Strong validator, quoted: changes whenever the bytes could have. */
  etag: string;
  /** Wall-clock milliseconds of the last write, sent as `Last-Modified` when known. */
  modifiedAt?: number;
  /** The bytes from `start` to `end` inclusive (the whole video when omitted); releases the video when done. */
  stream(range?: { start: number; end: number }): ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  /** Releases the video when no stream is taken (HEAD, 304, 416). */
  close(): Promise<void>;
}

export interface VideoDownloadSource {
  /** Checks the URL's `expires` and `signature` (see `VideoUrlSigner.check`). */
  check(taskId: string, expires: string | null, signature: string | null): Promise<UrlCheck>;
  /** The task's video, or undefined when there is none (never made, or deleted). */
  open(taskId: string): Promise<DownloadableVideo | undefined>;
  /** Service time in ms, the clock the URL was signed with. */
  now: number;
}

const VIDEO_FILE = /^([A-Za-z0-9_-]{1,128})\.mp4$/;

const REFUSALS = {
  INVALID_SIGNATURE:
    "The video URL's signature is missing or does not match; use the video_url from the task status.",
  URL_EXPIRED: "The video URL has expired; read the task status again for a fresh video_url.",
} as const;

function notFound(message: string): Response {
  return Response.json(
    { error: "Not Found", code: "NOT_FOUND", message },
    { status: 404, headers: NOSNIFF_HEADERS },
  );
}

/** The methods a video takes, as `Allow` lists them. */
const VIDEO_METHODS = "GET, HEAD";

function methodNotAllowed(method: string): Response {
  return Response.json(
    {
      error: "Method Not Allowed",
      code: "METHOD_NOT_ALLOWED",
      message: `${method} is not allowed on a video; it takes ${VIDEO_METHODS}.`,
    },
    { status: 405, headers: { Allow: VIDEO_METHODS, ...NOSNIFF_HEADERS } },
  );
}

/**
 * `GET`/`HEAD /videos/{task_id}.mp4?expires=&signature=`, the signed download
 * of docs/api.md#video-download, without an Authorization header. `fileName` is
 * the path after `/videos/`. Another method answers 405 with `Allow`, a path that
 * names nothing 404; then the signature is checked, before anything that depends on
 * the name (403 `INVALID_SIGNATURE`, then `URL_EXPIRED`), so an unsigned request learns
 * nothing, not even whether the video exists (404 `NOT_FOUND`). Supports single
 * byte ranges (206/416), ETag revalidation (304) and `If-Range`, which is what
 * browsers' `<video>` and download tools use. Every answer is JSON but the video's own.
 *
 * @example
 * serveVideoDownload(request, "3f6c….mp4", {
 *   check: (taskId, expires, signature) => signer.check(taskId, expires, signature, clock.now()),
 *   open: (taskId) => storage.open(taskId),
 *   now: clock.now(),
 * });
 */
export async function serveVideoDownload(
  request: Request,
  fileName: string,
  source: VideoDownloadSource,
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed(request.method);
  if (fileName === "") return notFound("No such video.");

  // A name that is not a video's is checked like any other: no signature fits it, so an odd
  // name gets the same 403 as a missing signature, and tells nothing.
  const taskId = VIDEO_FILE.exec(fileName)?.[1];
  const query = new URL(request.url).searchParams;
  const expires = query.get("expires");
  const check = await source.check(taskId ?? fileName, expires, query.get("signature"));
  if (!check.ok)
    return Response.json(
      { error: "Forbidden", code: check.code, message: REFUSALS[check.code] },
      { status: 403, headers: NOSNIFF_HEADERS },
    );
  if (!taskId) return notFound("No such video.");

  const video = await source.open(taskId);
  if (!video) return notFound("The video no longer exists.");
  const expiresIn = Math.max(0, Number(expires) - Math.floor(source.now / 1000));
  const headers: Record<string, string> = {
    "Content-Type": "video/mp4",
    ...NOSNIFF_HEADERS,
    "Accept-Ranges": "bytes",
    ETag: video.etag,
    // The URL is a bearer credential until it expires: caches may keep it only that long, privately.
    "Cache-Control": `private, max-age=${expiresIn}`,
  };
  if (video.modifiedAt !== undefined) headers["Last-Modified"] = new Date(video.modifiedAt).toUTCString();
  const head = request.method === "HEAD";
  const answer = async (status: number, range?: { start: number; end: number }) => {
    if (head || status === 304) {
      await video.close();
      return new Response(null, { status, headers });
    }
    return new Response(video.stream(range), { status, headers });
  };

  if (matchesNoneMatch(request.headers.get("If-None-Match") ?? undefined, video.etag)) return answer(304);

  // If-Range names the version the client already holds part of; any other version gets sent whole.
  const ifRange = request.headers.get("If-Range");
  const rangeApplies = !ifRange || ifRange === video.etag || ifRange === headers["Last-Modified"];
  const range = parseRange(
    rangeApplies ? (request.headers.get("Range") ?? undefined) : undefined,
    video.size,
  );

  if (range.kind === "unsatisfiable") {
    await video.close();
    return Response.json(
      {
        error: "Range Not Satisfiable",
        code: "RANGE_NOT_SATISFIABLE",
        message: `The video has ${video.size} bytes.`,
      },
      {
        status: 416,
        headers: { "Content-Range": `bytes */${video.size}`, "Accept-Ranges": "bytes", ...NOSNIFF_HEADERS },
      },
    );
  }
  if (range.kind === "partial") {
    headers["Content-Range"] = `bytes ${range.start}-${range.end}/${video.size}`;
    headers["Content-Length"] = String(range.end - range.start + 1);
    return answer(206, range);
  }
  headers["Content-Length"] = String(video.size);
  return answer(200);
}

/**
 * A video held in memory (the tiny MP4 of a mock), as `serveVideoDownload` reads it.
 *
 * @example
 * open: async () => videoFromBytes(tinyMp4Bytes(), '"genvideo-mock-video"'),
 */
export function videoFromBytes(bytes: Uint8Array<ArrayBuffer>, etag: string): DownloadableVideo {
  return {
    size: bytes.byteLength,
    etag,
    stream: (range) => (range ? bytes.slice(range.start, range.end + 1) : bytes),
    close: async () => {},
  };
}
