/**
 * The S3 video storage against a local S3-compatible server (s3rver, in this
 * process): uploads, presigned GETs that the object store itself serves with
 * Range and `video/mp4`, and refuses when tampered with or expired, and the
 * retention sweep deleting only what it owns.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AwsClient } from "aws4fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LocalS3Server,
  S3_TEST_CREDENTIALS,
  S3_TEST_REGION,
  startLocalS3,
} from "../../test/support/s3-server.js";
import { freeLoopbackPort } from "../testing/loopback.js";
import { S3RequestError, S3VideoStorage, type S3VideoStorageOptions } from "./s3-video-storage.js";

const DAY_MS = 86_400_000;

let s3: LocalS3Server;
let stagingDir: string;

beforeAll(async () => {
  s3 = await startLocalS3();
  stagingDir = await mkdtemp(join(tmpdir(), "genvideo-s3-staging-"));
});

afterAll(async () => {
  await s3?.close();
  if (stagingDir) await rm(stagingDir, { recursive: true, force: true });
});

function storage(options: Partial<S3VideoStorageOptions> = {}): S3VideoStorage {
  return new S3VideoStorage({
    location: { bucket: s3.bucket, prefix: "renders/" },
    endpoint: s3.endpoint,
    region: S3_TEST_REGION,
    credentials: S3_TEST_CREDENTIALS,
    stagingDir,
    ...options,
  });
}

/** Renders a "video" (random bytes: the store does not look at them) and uploads it. */
async function uploadVideo(videos: S3VideoStorage, size = 64 * 1024) {
  const taskId = randomUUID();
  const bytes = randomBytes(size);
  const staged = await videos.stagingPath(taskId);
  await writeFile(staged, bytes);
  const { videoKey } = await videos.put(taskId, staged);
  return { taskId, videoKey, bytes, staged };
}

/** A signed request of our own, to put objects the sweep must leave alone. */
async function putRaw(key: string, body: string): Promise<void> {
  const client = new AwsClient({ ...S3_TEST_CREDENTIALS, service: "s3", region: S3_TEST_REGION });
  const response = await client.fetch(`${s3.endpoint}/${s3.bucket}/${key}`, { method: "PUT", body });
  expect(response.status).toBe(200);
}

describe("upload and presigned download", () => {
  it("uploads the staged file, removes it, and the presigned URL serves it as video/mp4", async () => {
    const videos = storage();
    const { taskId, videoKey, bytes, staged } = await uploadVideo(videos);
    expect(videoKey).toBe(`${taskId}.mp4`);
    await expect(stat(staged)).rejects.toMatchObject({ code: "ENOENT" });

    const url = new URL(await videos.signedUrl(videoKey, taskId, Date.now()));
    expect(url.origin).toBe(s3.endpoint);
    expect(url.pathname).toBe(`/${s3.bucket}/renders/${taskId}.mp4`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe(String(7 * 86_400));

    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    expect(response.headers.get("content-length")).toBe(String(bytes.length));
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("answers a Range request with 206 and exactly those bytes", async () => {
    const videos = storage();
    const { taskId, videoKey, bytes } = await uploadVideo(videos);
    const url = await videos.signedUrl(videoKey, taskId, Date.now());

    const response = await fetch(url, { headers: { Range: "bytes=100-1123" } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    expect(response.headers.get("content-range")).toBe(`bytes 100-1123/${bytes.length}`);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(100, 1124))).toBe(true);
  });

  it("refuses a URL whose signature, key or lifetime was changed", async () => {
    const videos = storage();
    const first = await uploadVideo(videos);
    const second = await uploadVideo(videos);
    const url = new URL(await videos.signedUrl(first.videoKey, first.taskId, Date.now()));

    const badSignature = new URL(url);
    const signature = url.searchParams.get("X-Amz-Signature") ?? "";
    badSignature.searchParams.set(
      "X-Amz-Signature",
      `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`,
    );
    const otherVideo = new URL(url);
    otherVideo.pathname = `/${s3.bucket}/renders/${second.taskId}.mp4`;
    const longerLife = new URL(url);
    longerLife.searchParams.set("X-Amz-Expires", "604799");

    for (const tampered of [badSignature, otherVideo, longerLife]) {
      const response = await fetch(tampered);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
    }
  });

  it("refuses a URL past its lifetime, checked on the object store's clock", async () => {
    const ttlSeconds = 3600;
    // Signed three hours ago, valid one hour (plus the minute a URL is reused for).
    const videos = storage({ ttlSeconds, wallClock: () => Date.now() - 3 * 3600_000 });
    const { taskId, videoKey } = await uploadVideo(videos);
    const url = new URL(await videos.signedUrl(videoKey, taskId, Date.now()));
    expect(url.searchParams.get("X-Amz-Expires")).toBe(String(ttlSeconds + 60));

    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("Request has expired");
  });

  it("signs a task's URL once a minute, and runs service-time TTLs in real seconds", async () => {
    let wall = Date.parse("2026-11-23T10:00:05Z");
    const videos = storage({ ttlSeconds: 7 * 86_400, timeScale: 600, wallClock: () => wall });
    const taskId = randomUUID();
    const first = await videos.signedUrl(`${taskId}.mp4`, taskId, 0);
    wall += 50_000;
    expect(await videos.signedUrl(`${taskId}.mp4`, taskId, 0)).toBe(first);
    wall += 10_000;
    const next = await videos.signedUrl(`${taskId}.mp4`, taskId, 0);
    expect(next).not.toBe(first);
    expect(new URL(first).searchParams.get("X-Amz-Date")).toBe("20261123T100000Z");
    expect(new URL(next).searchParams.get("X-Amz-Date")).toBe("20261123T100100Z");
    // 7 days at 600x is 1008 real seconds.
    expect(new URL(first).searchParams.get("X-Amz-Expires")).toBe(String(1008 + 60));
  });

  it("refuses to sign a key that is not the task's, and a lifetime S3 cannot presign", async () => {
    const videos = storage();
    const taskId = randomUUID();
    await expect(videos.signedUrl(`${randomUUID()}.mp4`, taskId, 0)).rejects.toThrow(/does not belong/);
    expect(() => storage({ ttlSeconds: 8 * 86_400 })).toThrow(/at most 7 days/);
  });
});

describe("retention sweep", () => {
  it("deletes the videos uploaded before the retention, and nothing else under the bucket", async () => {
    const videos = storage({ location: { bucket: s3.bucket, prefix: "sweep/" }, retentionMs: DAY_MS });
    const old = await uploadVideo(videos, 1024);
    const recent = await uploadVideo(videos, 1024);
    await s3.age(`sweep/${old.videoKey}`, new Date(Date.now() - 2 * DAY_MS));
    // Not ours though under the prefix, one level down, or outside it: never touched.
    const strangers = [
      "sweep/notes.txt",
      `sweep/nested/${randomUUID()}.mp4`,
      `elsewhere/${randomUUID()}.mp4`,
    ];
    for (const key of strangers) {
      await putRaw(key, "keep me");
      await s3.age(key, new Date(Date.now() - 30 * DAY_MS));
    }

    const result = await videos.sweep();
    expect(result).toEqual({ taskIds: [old.taskId], partials: 0 });

    const oldUrl = await videos.signedUrl(old.videoKey, old.taskId, Date.now());
    expect((await fetch(oldUrl)).status).toBe(404);
    const recentUrl = await videos.signedUrl(recent.videoKey, recent.taskId, Date.now());
    expect((await fetch(recentUrl)).status).toBe(200);
    const client = new AwsClient({ ...S3_TEST_CREDENTIALS, service: "s3", region: S3_TEST_REGION });
    for (const key of strangers) {
      expect((await client.fetch(`${s3.endpoint}/${s3.bucket}/${key}`, { method: "HEAD" })).status).toBe(200);
    }
    expect(await videos.sweep()).toEqual({ taskIds: [], partials: 0 });
  });

  it("pages through listings longer than one response", async () => {
    const videos = storage({
      location: { bucket: s3.bucket, prefix: "many/" },
      retentionMs: DAY_MS,
      listPageSize: 2,
    });
    const uploaded = [];
    for (let index = 0; index < 5; index++) uploaded.push(await uploadVideo(videos, 16));
    await putRaw("many/readme.txt", "not a video, between pages");
    // A week from now, all five are past a one-day retention.
    const result = await videos.sweep(Date.now() + 7 * DAY_MS);
    expect(result.taskIds.sort()).toEqual(uploaded.map((video) => video.taskId).sort());
  });

  it("removes staging files a crashed render left, once stale", async () => {
    const videos = storage({ location: { bucket: s3.bucket, prefix: "partials/" }, retentionMs: 1000 });
    const staged = await videos.stagingPath(randomUUID());
    await writeFile(staged, "half a video");
    expect((await videos.sweep(Date.now())).partials).toBe(0);
    expect((await videos.sweep(Date.now() + 2 * 3600_000)).partials).toBe(1);
    await expect(stat(staged)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("access check", () => {
  it("passes with a bucket it can list", async () => {
    await expect(storage().checkAccess()).resolves.toBeUndefined();
  });

  it("says what failed: a missing bucket, wrong credentials, or no server at the endpoint", async () => {
    await expect(
      storage({ location: { bucket: "no-such-bucket", prefix: "" } }).checkAccess(),
    ).rejects.toMatchObject({ status: 404, code: "NoSuchBucket" });
    await expect(
      storage({ credentials: { accessKeyId: "S3RVER", secretAccessKey: "wrong" } }).checkAccess(),
    ).rejects.toMatchObject({ status: 403, code: "SignatureDoesNotMatch" });
    const unreachable = storage({ endpoint: `http://127.0.0.1:${await freeLoopbackPort()}` }).checkAccess();
    await expect(unreachable).rejects.toBeInstanceOf(S3RequestError);
    await expect(unreachable).rejects.toThrow(/ECONNREFUSED/);
  });
});
