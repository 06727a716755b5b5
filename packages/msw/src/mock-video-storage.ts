import { bytesToBase64, TINY_MP4_CONTENT_TYPE, tinyMp4Bytes, type VideoStorage } from "@genvideo/engine";

/** How long a `video_url` works, as on the reference server (docs/api.md#task-status: 7 days). */
const VIDEO_URL_LIFETIME_SECONDS = 7 * 24 * 3600;
const VIDEO_FILE = /^\/videos\/([A-Za-z0-9_-]{1,128})\.mp4$/;
const encoder = new TextEncoder();

const MESSAGES = {
  INVALID_SIGNATURE:
    "The video URL's signature is missing or does not match; use the video_url from the task status.",
  URL_EXPIRED: "The video URL has expired; read the task status again for a fresh video_url.",
} as const;

function base64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Signed download URLs shaped like the reference server's
 * (`/videos/<task_id>.mp4?expires=&signature=`), signed with Web Crypto so it
 * runs in browsers, and the route that serves them: the same refusals (403
 * before anything else, 404, 416) and single byte ranges that `<video>` uses.
 */
export class MockVideoStorage implements VideoStorage {
  readonly #publicUrl: string;
  readonly #key: Promise<CryptoKey>;

  constructor(publicUrl: string, signingKey: Uint8Array<ArrayBuffer>) {
    this.#publicUrl = publicUrl;
    this.#key = crypto.subtle.importKey("raw", signingKey, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
  }

  async #sign(taskId: string, expires: number): Promise<string> {
    const mac = await crypto.subtle.sign("HMAC", await this.#key, encoder.encode(`${taskId}.${expires}`));
    return base64Url(new Uint8Array(mac));
  }

  async signedUrl(_videoKey: string, taskId: string, now: number): Promise<string> {
    const expires = Math.floor(now / 1000) + VIDEO_URL_LIFETIME_SECONDS;
    return `${this.#publicUrl}/videos/${taskId}.mp4?expires=${expires}&signature=${await this.#sign(taskId, expires)}`;
  }

  /**
   * Serves `GET`/`HEAD /videos/...` at service time `now`. `exists` says
   * whether the task has a video (a completed task of this mock).
   */
  async serve(
    request: Request,
    path: string,
    now: number,
    exists: (taskId: string) => Promise<boolean>,
  ): Promise<Response> {
    const taskId = VIDEO_FILE.exec(path)?.[1];
    if (!taskId)
      return Response.json(
        { error: "Not Found", code: "NOT_FOUND", message: "No such video." },
        { status: 404 },
      );
    const query = new URL(request.url).searchParams;
    const expires = query.get("expires") ?? "";
    const signature = query.get("signature") ?? "";
    // The signature first: an unsigned request learns nothing, not even whether the URL expired.
    if (!/^\d{1,15}$/.test(expires) || signature !== (await this.#sign(taskId, Number(expires))))
      return forbidden("INVALID_SIGNATURE");
    if (Number(expires) < Math.floor(now / 1000)) return forbidden("URL_EXPIRED");
    if (!(await exists(taskId))) {
      return Response.json(
        { error: "Not Found", code: "NOT_FOUND", message: "The video no longer exists." },
        { status: 404 },
      );
    }
    return videoResponse(request, Number(expires) - Math.floor(now / 1000));
  }
}

function forbidden(code: keyof typeof MESSAGES): Response {
  return Response.json({ error: "Forbidden", code, message: MESSAGES[code] }, { status: 403 });
}

function videoResponse(request: Request, expiresIn: number): Response {
  const video = tinyMp4Bytes();
  const size = video.byteLength;
  const headers: Record<string, string> = {
    "Content-Type": TINY_MP4_CONTENT_TYPE,
    "Accept-Ranges": "bytes",
    ETag: '"genvideo-mock-video"',
    "Cache-Control": `private, max-age=${expiresIn}`,
  };
  const body = (bytes: Uint8Array<ArrayBuffer>) => (request.method === "HEAD" ? null : bytes);
  const range = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(request.headers.get("range") ?? "");
  if (range && (range[1] || range[2])) {
    const [, first = "", last = ""] = range;
    const start = first === "" ? Math.max(0, size - Number(last)) : Number(first);
    const end = first === "" || last === "" ? size - 1 : Math.min(Number(last), size - 1);
    if (start >= size || (first === "" && Number(last) === 0)) {
      return Response.json(
        {
          error: "Range Not Satisfiable",
          code: "RANGE_NOT_SATISFIABLE",
          message: `The video has ${size} bytes.`,
        },
        { status: 416, headers: { "Content-Range": `bytes */${size}`, "Accept-Ranges": "bytes" } },
      );
    }
    if (end >= start) {
      headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
      headers["Content-Length"] = String(end - start + 1);
      return new Response(body(video.slice(start, end + 1)), { status: 206, headers });
    }
  }
  headers["Content-Length"] = String(size);
  return new Response(body(video), { status: 200, headers });
}
