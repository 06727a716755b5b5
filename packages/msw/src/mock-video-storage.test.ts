import { tinyMp4Bytes } from "@genvideo/engine";
import { describe, expect, it } from "vitest";
import { MockVideoStorage } from "./mock-video-storage.js";

const NOW = Date.UTC(2026, 0, 1);
const storage = new MockVideoStorage("https://api.test", new Uint8Array(32).fill(3));
const madeAt = async (): Promise<number | undefined> => NOW - 60_000;

async function serve(url: string, init: RequestInit = {}, now = NOW, found: typeof madeAt = madeAt) {
  return storage.serve(new Request(url, init), new URL(url).pathname, now, found);
}

describe("MockVideoStorage", () => {
  it("signs URLs valid for 7 days and serves the fixture MP4", async () => {
    const url = await storage.signedUrl("videos/t.mp4", "task-1", NOW);
    expect(url).toMatch(/^https:\/\/api\.test\/videos\/task-1\.mp4\?expires=\d+&signature=[\w-]+$/);
    const response = await serve(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    expect(response.headers.get("last-modified")).toBe(new Date(NOW - 60_000).toUTCString());
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(tinyMp4Bytes());
    expect((await serve(url, {}, NOW + 7 * 24 * 3600_000 + 1000)).status).toBe(403);
  });

  it.each([
    ["bytes=0-3", 206, "bytes 0-3/SIZE", 4],
    ["bytes=-4", 206, "bytes SIZE-4-SIZE-1/SIZE", 4],
    ["bytes=10-", 206, "bytes 10-SIZE-1/SIZE", -10],
    ["bytes=999999-", 416, "bytes */SIZE", null],
    ["bytes=5-2", 200, null, 0],
    ["items=0-1", 200, null, 0],
  ])("Range %s answers %i", async (range, status, contentRange, length) => {
    const size = tinyMp4Bytes().byteLength;
    const expected = contentRange
      ?.replace("SIZE-4-SIZE-1", `${size - 4}-${size - 1}`)
      .replace("SIZE-1", String(size - 1))
      .replace("SIZE", String(size));
    const response = await serve(await storage.signedUrl("k", "task-2", NOW), { headers: { range } });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-range")).toBe(expected ?? null);
    if (length !== null) {
      const bytes = (await response.arrayBuffer()).byteLength;
      expect(bytes).toBe(length > 0 ? length : size + length);
    }
  });

  it("answers HEAD without a body", async () => {
    const response = await serve(await storage.signedUrl("k", "task-3", NOW), { method: "HEAD" });
    expect([response.status, response.body, response.headers.get("content-length")]).toEqual([
      200,
      null,
      String(tinyMp4Bytes().byteLength),
    ]);
  });

  it("checks the signature before anything else, then existence", async () => {
    const url = await storage.signedUrl("k", "task-4", NOW);
    const forged = url.replace("task-4", "task-5");
    expect(await (await serve(forged, {}, NOW, async () => undefined)).json()).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
    expect((await serve(url.split("?")[0]!)).status).toBe(403);
    expect((await serve(url, {}, NOW, async () => undefined)).status).toBe(404);
    expect((await serve("https://api.test/videos/../etc.mp4")).status).toBe(404);
  });
});
