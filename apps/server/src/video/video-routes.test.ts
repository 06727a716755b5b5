import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalVideoStorage } from "./local-video-storage.js";
import { videoRoutes } from "./video-routes.js";

const TASK = "3f6c2a1e-8b4d-4c5a-9e7f-0a1b2c3d4e5f";
const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, index) => index % 251));
let dir: string;
let storage: LocalVideoStorage;
let app: Hono;
let now = Date.UTC(2026, 10, 22, 12, 0, 0);
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "genvideo-routes-"));
  storage = new LocalVideoStorage({ dir, publicUrl: "http://127.0.0.1:8787", signingKey: "server-secret" });
  await writeFile(join(dir, `${TASK}.mp4`), BYTES);
  app = videoRoutes(storage, { now: () => now });
  const signed = new URL(await storage.signedUrl(`${TASK}.mp4`, TASK, now));
  url = signed.pathname + signed.search;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe("GET /videos/:task_id.mp4", () => {
  it("serves the whole video with type, length, ETag and Accept-Ranges, without Authorization", async () => {
    const response = await app.request(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    expect(response.headers.get("content-length")).toBe("1000");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(response.headers.get("etag")).toMatch(/^"/);
    expect(await bytesOf(response)).toEqual(BYTES);
  });

  it("answers HEAD with the headers and no body", async () => {
    const response = await app.request(url, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("1000");
    expect(await response.text()).toBe("");
  });

  it.each([
    ["bytes=100-199", 100, 199],
    ["bytes=900-", 900, 999],
    ["bytes=-10", 990, 999],
    ["bytes=990-5000", 990, 999],
  ])("answers Range %s with 206 and exactly those bytes", async (range, start, end) => {
    const response = await app.request(url, { headers: { Range: range } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/1000`);
    expect(response.headers.get("content-length")).toBe(String(end - start + 1));
    expect(await bytesOf(response)).toEqual(BYTES.subarray(start, end + 1));
  });

  it("answers an unsatisfiable Range with 416 and the size", async () => {
    const response = await app.request(url, { headers: { Range: "bytes=1000-" } });
    expect(response.status).toBe(416);
    expect(response.headers.get("content-range")).toBe("bytes */1000");
    expect(await response.json()).toMatchObject({ code: "RANGE_NOT_SATISFIABLE" });
  });

  it("sends everything when If-Range names another version", async () => {
    const response = await app.request(url, { headers: { Range: "bytes=0-9", "If-Range": '"stale"' } });
    expect(response.status).toBe(200);
    expect((await bytesOf(response)).length).toBe(1000);
  });

  it("answers If-None-Match with the current ETag with 304", async () => {
    const etag = (await app.request(url, { method: "HEAD" })).headers.get("etag")!;
    const response = await app.request(url, { headers: { "If-None-Match": etag } });
    expect(response.status).toBe(304);
    expect(response.headers.get("etag")).toBe(etag);
  });

  it("refuses a tampered URL with 403 INVALID_SIGNATURE", async () => {
    const tampered = url.replace(/signature=./, (match) =>
      match.endsWith("A") ? `${match.slice(0, -1)}B` : `${match.slice(0, -1)}A`,
    );
    const response = await app.request(tampered);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: "Forbidden",
      code: "INVALID_SIGNATURE",
      message: expect.any(String),
    });
    expect((await app.request(`/videos/${TASK}.mp4`)).status).toBe(403);
  });

  it("refuses an expired URL with 403 URL_EXPIRED", async () => {
    const saved = now;
    now += 8 * 24 * 3600 * 1000;
    try {
      const response = await app.request(url);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: "Forbidden", code: "URL_EXPIRED" });
    } finally {
      now = saved;
    }
  });

  it("answers 404 for a validly signed URL whose video is gone", async () => {
    const other = "11111111-2222-4333-8444-555555555555";
    const signed = new URL(await storage.signedUrl(`${other}.mp4`, other, now));
    const response = await app.request(signed.pathname + signed.search);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it.each(["..%2Fsecret.mp4", "a b.mp4", "x/y.mp4", "not-a-video.txt", `${TASK}.MP4`])(
    "checks the signature of an odd name %s before anything else: 403, as for any unsigned request",
    async (name) => {
      const response = await app.request(`/videos/${name}?${new URL(url, "http://x").search.slice(1)}`);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: "Forbidden", code: "INVALID_SIGNATURE" });
    },
  );

  it("answers a path that names no video with a JSON 404", async () => {
    const response = await app.request("/videos/");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: "Not Found",
      code: "NOT_FOUND",
      message: "No such video.",
    });
  });

  it.each(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])(
    "answers %s with a JSON 405 and Allow: GET, HEAD, before the signature",
    async (method) => {
      for (const path of [url, `/videos/${TASK}.mp4`, "/videos/"]) {
        const response = await app.request(path, { method });
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("GET, HEAD");
        expect(await response.json()).toEqual({
          error: "Method Not Allowed",
          code: "METHOD_NOT_ALLOWED",
          message: `${method} is not allowed on a video; it takes GET, HEAD.`,
        });
      }
    },
  );
});

describe("over HTTP (@hono/node-server)", () => {
  it("streams a Range with the right Content-Length and bytes", async () => {
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
    });
    try {
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { Range: "bytes=500-599" } });
      expect(response.status).toBe(206);
      expect(response.headers.get("content-length")).toBe("100");
      expect(await bytesOf(response)).toEqual(BYTES.subarray(500, 600));
    } finally {
      // fetch keeps the connection alive; close it so the server stops at once.
      (server as Server).closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
