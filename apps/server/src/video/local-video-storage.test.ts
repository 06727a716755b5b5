import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { VideoUrlSigner } from "@genvideo/engine";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalVideoStorage } from "./local-video-storage.js";

const TASK = "3f6c2a1e-8b4d-4c5a-9e7f-0a1b2c3d4e5f";
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
let dir: string;
let storage: LocalVideoStorage;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "genvideo-storage-"));
  storage = new LocalVideoStorage({
    dir,
    publicUrl: "https://videos.example.com/",
    signingKey: "server-secret",
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function query(url: string) {
  const parsed = new URL(url);
  return {
    expires: parsed.searchParams.get("expires") ?? undefined,
    signature: parsed.searchParams.get("signature") ?? undefined,
    parsed,
  };
}

describe("signed URLs", () => {
  it("signs with node:crypto exactly as the engine's Web Crypto signer does: URLs issued either way check out", async () => {
    const webCrypto = new VideoUrlSigner({
      publicUrl: "https://videos.example.com/",
      signingKey: "server-secret",
    });
    const url = await storage.signedUrl(storage.keyForTask(TASK), TASK, NOW);
    expect(url).toBe(await webCrypto.signedUrl(TASK, NOW));
    const fromEngine = query(await webCrypto.signedUrl(TASK, NOW + 3_600_000));
    expect(await storage.checkUrl(TASK, fromEngine.expires, fromEngine.signature, NOW)).toEqual({ ok: true });
    // A known vector (HMAC-SHA256 under the key derived from "server secret"): URLs issued before keep working.
    const legacy = new LocalVideoStorage({ dir, publicUrl: "https://x.test", signingKey: "server secret" });
    const signature = "5ylfnyQ-2hAkfaRASkbYZoGtqFSNRswFAbhHy2roBEs";
    expect(await legacy.checkUrl("6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c", "1700000000", signature, 0)).toEqual(
      {
        ok: true,
      },
    );
  });

  it("signs {public_url}/videos/{task_id}.mp4 with expires (7 days) and an HMAC signature that checks out", async () => {
    const url = await storage.signedUrl(storage.keyForTask(TASK), TASK, NOW);
    const { expires, signature, parsed } = query(url);
    expect(parsed.origin + parsed.pathname).toBe(`https://videos.example.com/videos/${TASK}.mp4`);
    expect(Number(expires)).toBe(NOW / 1000 + 7 * 24 * 3600);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await storage.checkUrl(TASK, expires, signature, NOW)).toEqual({ ok: true });
  });

  it("gives a task one URL per minute: expiry rounded up to the minute, a fresh valid URL after it", async () => {
    const first = await storage.signedUrl(`${TASK}.mp4`, TASK, NOW + 1000);
    // NOW is on a minute: the TTL from a second later rounds up to the next minute.
    expect(Number(query(first).expires)).toBe(NOW / 1000 + 7 * 24 * 3600 + 60);
    expect(await storage.signedUrl(`${TASK}.mp4`, TASK, NOW + 59_999)).toBe(first);
    expect(await storage.signedUrl(`${TASK}.mp4`, TASK, NOW + 60_999)).toBe(first);
    const later = await storage.signedUrl(`${TASK}.mp4`, TASK, NOW + 61_000);
    expect(Number(query(later).expires)).toBe(Number(query(first).expires) + 60);
    const { expires, signature } = query(later);
    expect(await storage.checkUrl(TASK, expires, signature, NOW + 61_000)).toEqual({ ok: true });
    // Another task in the same minute is signed for itself.
    const otherTask = TASK.replace("3f", "4f");
    const other = query(await storage.signedUrl(`${otherTask}.mp4`, otherTask, NOW));
    expect(other.signature).not.toBe(query(first).signature);
    expect(await storage.checkUrl(otherTask, other.expires, other.signature, NOW)).toEqual({ ok: true });
  });

  it("refuses a tampered signature, expiry or task id, and a URL past its expiry", async () => {
    const { expires, signature } = query(await storage.signedUrl(`${TASK}.mp4`, TASK, NOW));
    const flipped = `${signature!.slice(0, -1)}${signature!.endsWith("A") ? "B" : "A"}`;
    expect(await storage.checkUrl(TASK, expires, flipped, NOW)).toEqual({
      ok: false,
      code: "INVALID_SIGNATURE",
    });
    expect(await storage.checkUrl(TASK, String(Number(expires) + 60), signature, NOW)).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
    expect(await storage.checkUrl(TASK.replace("3f", "4f"), expires, signature, NOW)).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
    expect(await storage.checkUrl(TASK, undefined, signature, NOW)).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
    expect(await storage.checkUrl(TASK, expires, `${signature}=`, NOW)).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
    // The same instant written another way is not the signed text either.
    expect(await storage.checkUrl(TASK, `0${expires}`, signature, NOW)).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
    const later = (Number(expires) + 1) * 1000;
    expect(await storage.checkUrl(TASK, expires, signature, later)).toEqual({
      ok: false,
      code: "URL_EXPIRED",
    });
  });

  it("does not accept URLs signed with another key", async () => {
    const other = new LocalVideoStorage({ dir, publicUrl: "https://x", signingKey: "other-secret" });
    const { expires, signature } = query(await other.signedUrl(`${TASK}.mp4`, TASK, NOW));
    expect(await storage.checkUrl(TASK, expires, signature, NOW)).toMatchObject({
      code: "INVALID_SIGNATURE",
    });
  });

  it("honours a configured ttl", async () => {
    const short = new LocalVideoStorage({ dir, publicUrl: "https://x", signingKey: "k", ttlSeconds: 60 });
    expect(Number(query(await short.signedUrl(`${TASK}.mp4`, TASK, NOW)).expires)).toBe(NOW / 1000 + 60);
  });
});

describe("files", () => {
  it("puts a staged file under the task's key and opens it", async () => {
    const staged = await storage.stagingPath(TASK);
    await writeFile(staged, "video bytes");
    expect(await storage.put(TASK, staged)).toEqual({ videoKey: `${TASK}.mp4` });
    const video = await storage.open(`${TASK}.mp4`);
    expect(video?.size).toBe(11);
    expect(video?.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(await new Response(video!.stream({ start: 6, end: 10 })).text()).toBe("bytes");
    expect(await readdir(join(dir, ".staging"))).toEqual([]);
  });

  it("stores a video two folder levels down, named by the start of its task id", async () => {
    const staged = await storage.stagingPath(TASK);
    await writeFile(staged, "sharded");
    await storage.put(TASK, staged);
    expect(await readdir(join(dir, "3f", "6c"))).toEqual([`${TASK}.mp4`]);
    expect((await readdir(dir)).filter((name) => name.endsWith(".mp4"))).toEqual([]);
    expect(await storage.delete(`${TASK}.mp4`)).toBe(true);
    expect(await storage.stat(`${TASK}.mp4`)).toBeUndefined();
  });

  it("finds, serves, deletes and sweeps a video an earlier version wrote flat in the directory", async () => {
    const flat = join(dir, `${TASK}.mp4`);
    await writeFile(flat, "flat video");
    expect((await storage.stat(`${TASK}.mp4`))?.size).toBe(10);
    const video = await storage.open(`${TASK}.mp4`);
    expect(await new Response(video!.stream({ start: 5, end: 9 })).text()).toBe("video");
    expect(await storage.delete(`${TASK}.mp4`)).toBe(true);
    expect(await storage.open(`${TASK}.mp4`)).toBeUndefined();
    expect(await storage.delete(`${TASK}.mp4`)).toBe(false);
  });

  it("makes its folders again when they were removed while it runs", async () => {
    const first = await storage.stagingPath(TASK);
    await writeFile(first, "first");
    await storage.put(TASK, first);
    await rm(dir, { recursive: true });
    const second = await storage.stagingPath(TASK);
    await writeFile(second, "second");
    expect(await storage.put(TASK, second)).toEqual({ videoKey: `${TASK}.mp4` });
    expect((await storage.open(`${TASK}.mp4`))?.size).toBe(6);
  });

  it("refuses keys that could escape the directory", async () => {
    expect(() => storage.keyForTask("../etc/passwd")).toThrow();
    expect(await storage.open("../secret.mp4")).toBeUndefined();
  });

  it("deletes videos older than the retention period, sharded or flat, and names their tasks", async () => {
    const OTHER = "11111111-2222-4333-8444-555555555555";
    const FLAT = "22222222-2222-4333-8444-555555555555";
    for (const [id, body] of [
      [TASK, "old"],
      [OTHER, "fresh"],
    ]) {
      const staged = await storage.stagingPath(id!);
      await writeFile(staged, body!);
      await storage.put(id!, staged);
    }
    const flatOld = join(dir, `${FLAT}.mp4`);
    await writeFile(flatOld, "flat and old");
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const path of [join(dir, "3f", "6c", `${TASK}.mp4`), flatOld])
      await utimes(path, eightDaysAgo, eightDaysAgo);
    const swept = await storage.sweep();
    expect({ ...swept, taskIds: [...swept.taskIds].sort() }).toEqual({
      taskIds: [FLAT, TASK].sort(),
      partials: 0,
    });
    expect(await readdir(join(dir, "11", "11"))).toEqual([`${OTHER}.mp4`]);
    expect((await readdir(dir)).filter((name) => name.endsWith(".mp4"))).toEqual([]);
    expect(await storage.deleteOlderThan(Date.now() + 1000)).toBe(1);
  });

  it("keeps a staging file a render may still be writing, even under a retention of seconds", async () => {
    const short = new LocalVideoStorage({ dir, publicUrl: "http://x", signingKey: "k", retentionMs: 1000 });
    const inProgress = await short.stagingPath(TASK);
    const abandoned = await short.stagingPath("11111111-2222-4333-8444-555555555555");
    await writeFile(inProgress, "being written");
    await writeFile(abandoned, "left by a crash");
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    await utimes(inProgress, tenSecondsAgo, tenSecondsAgo);
    await utimes(abandoned, twoHoursAgo, twoHoursAgo);
    expect(await short.sweep()).toEqual({ taskIds: [], partials: 1 });
    expect(await readdir(join(dir, ".staging"))).toEqual([basename(inProgress)]);
  });
});
