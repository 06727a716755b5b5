import { describe, expect, it } from "vitest";
import { tinyMp4Bytes } from "./tiny-mp4.js";
import { type DownloadableVideo, serveVideoDownload, videoFromBytes } from "./video-download.js";
import { VideoUrlSigner } from "./video-url-signer.js";

const TASK = "3f6c2a1e-8b4d-4c5a-9e7f-0a1b2c3d4e5f";
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const BYTES = new Uint8Array(Array.from({ length: 1000 }, (_, index) => index % 251));
const signer = new VideoUrlSigner({ publicUrl: "https://api.test", signingKey: "secret" });

async function serve(url: string, init: RequestInit = {}, options: { now?: number; video?: boolean } = {}) {
  const now = options.now ?? NOW;
  const closed: string[] = [];
  const open = async (taskId: string): Promise<DownloadableVideo | undefined> => {
    if (options.video === false) return undefined;
    const video = videoFromBytes(BYTES, '"v1"');
    return { ...video, modifiedAt: NOW - 1000, close: async () => void closed.push(taskId) };
  };
  const request = new Request(url, init);
  const fileName = new URL(url).pathname.split("/").pop() ?? "";
  const response = await serveVideoDownload(request, fileName, {
    check: (taskId, expires, signature) => signer.check(taskId, expires, signature, now),
    open,
    now,
  });
  return { response, closed };
}

describe("serveVideoDownload", () => {
  it("serves a signed URL whole, as video/mp4 with its validators, privately cached until it expires", async () => {
    const url = await signer.signedUrl(TASK, NOW);
    const { response } = await serve(url);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "content-type": "video/mp4",
      "content-length": "1000",
      "accept-ranges": "bytes",
      etag: '"v1"',
      "last-modified": new Date(NOW - 1000).toUTCString(),
      "cache-control": `private, max-age=${Number(new URL(url).searchParams.get("expires")) - NOW / 1000}`,
    });
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(BYTES);
  });

  it.each([
    ["bytes=100-199", 206, "bytes 100-199/1000", 100],
    ["bytes=-10", 206, "bytes 990-999/1000", 10],
    ["bytes=990-5000", 206, "bytes 990-999/1000", 10],
    ["bytes=1000-", 416, "bytes */1000", null],
    ["bytes=5-2", 200, null, 1000],
    ["items=0-1", 200, null, 1000],
  ])("answers Range %s with %i", async (range, status, contentRange, length) => {
    const { response } = await serve(await signer.signedUrl(TASK, NOW), { headers: { range } });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-range")).toBe(contentRange);
    if (length === null) expect(await response.json()).toMatchObject({ code: "RANGE_NOT_SATISFIABLE" });
    else expect((await response.arrayBuffer()).byteLength).toBe(length);
  });

  it("answers HEAD, 304 and a stale If-Range without leaking the opened video", async () => {
    const url = await signer.signedUrl(TASK, NOW);
    const head = await serve(url, { method: "HEAD" });
    expect([head.response.status, head.response.body, head.response.headers.get("content-length")]).toEqual([
      200,
      null,
      "1000",
    ]);
    expect(head.closed).toEqual([TASK]);
    const revalidated = await serve(url, { headers: { "If-None-Match": 'W/"v1"' } });
    expect(revalidated.response.status).toBe(304);
    expect(revalidated.closed).toEqual([TASK]);
    const stale = await serve(url, { headers: { Range: "bytes=0-9", "If-Range": '"v0"' } });
    expect(stale.response.status).toBe(200);
    expect((await stale.response.arrayBuffer()).byteLength).toBe(1000);
  });

  it("checks the signature before expiry and before existence, with the contract's bodies", async () => {
    const url = await signer.signedUrl(TASK, NOW);
    const forged = url.replace(TASK, TASK.replace("3f", "4f"));
    const refused = (await serve(forged, {}, { video: false })).response;
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: "Forbidden",
      code: "INVALID_SIGNATURE",
      message:
        "The video URL's signature is missing or does not match; use the video_url from the task status.",
    });
    expect((await serve(url.split("?")[0] ?? "")).response.status).toBe(403);
    const expired = (await serve(url, {}, { now: NOW + 8 * 24 * 3_600_000, video: false })).response;
    expect([expired.status, await expired.json()]).toEqual([
      403,
      {
        error: "Forbidden",
        code: "URL_EXPIRED",
        message: "The video URL has expired; read the task status again for a fresh video_url.",
      },
    ]);
    const gone = (await serve(url, {}, { video: false })).response;
    expect([gone.status, await gone.json()]).toEqual([
      404,
      { error: "Not Found", code: "NOT_FOUND", message: "The video no longer exists." },
    ]);
    // A name that is not a video's gets the signature's verdict too: nothing is told about it first.
    const query = new URL(url).search;
    const notAVideo = (await serve(`https://api.test/videos/..%2Fsecret.mp4${query}`)).response;
    expect([notAVideo.status, (await notAVideo.json()).code]).toEqual([403, "INVALID_SIGNATURE"]);
  });

  it("answers another method with 405 and Allow, and a path naming nothing with 404, in JSON", async () => {
    const url = await signer.signedUrl(TASK, NOW);
    for (const method of ["POST", "DELETE", "OPTIONS"]) {
      const { response } = await serve(url, { method });
      expect([response.status, response.headers.get("allow"), await response.json()]).toEqual([
        405,
        "GET, HEAD",
        {
          error: "Method Not Allowed",
          code: "METHOD_NOT_ALLOWED",
          message: `${method} is not allowed on a video; it takes GET, HEAD.`,
        },
      ]);
    }
    const nothing = (await serve("https://api.test/videos/")).response;
    expect([nothing.status, await nothing.json()]).toEqual([
      404,
      { error: "Not Found", code: "NOT_FOUND", message: "No such video." },
    ]);
  });

  it("serves bytes held in memory, a fresh slice per range", async () => {
    const video = videoFromBytes(tinyMp4Bytes(), '"tiny"');
    expect(video.size).toBe(2177);
    expect(video.stream({ start: 4, end: 7 })).toEqual(new TextEncoder().encode("ftyp"));
  });
});
