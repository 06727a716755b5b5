/**
 * Videos on S3-compatible storage, through the whole server: a local s3rver
 * (in this process) stands in for the bucket. A worker renders and uploads;
 * `video_url` is a presigned URL the object store serves (200, 206 for a
 * Range, video/mp4) and refuses when tampered with; a process on another data
 * directory, reading the same database, hands out URLs that download the same
 * MP4 (its own disk holds no video); retention deletes the object; and a
 * bucket it cannot use stops the start with one line naming the setting.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { completedTask, getStatus } from "./support/api.js";
import { download, isMp4 } from "./support/downloads.js";
import { useLocalS3 } from "./support/s3-server.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  type RunningServer,
  runCli,
  temporaryDataDir,
} from "./support/server-process.js";
import { serverSet } from "./support/use-server.js";

const s3 = useLocalS3();
const servers = serverSet();

function start(env: Record<string, string>, dataDir = temporaryDataDir()): Promise<RunningServer> {
  servers.removeLater(dataDir);
  // At 30x the 10-minute deadline is 20 s away: an upload on a busy machine never makes a task time out.
  return servers.start({ env: { ...FAST_SERVICE_ENV, GENVIDEO_TIME_SCALE: "30", ...env }, dataDir });
}

it("a completed task's video_url downloads the MP4 from the bucket, refuses tampering, and works when handed out by a process on another data directory", async () => {
  const workerDir = temporaryDataDir();
  const worker = await start(s3.serverEnvironment("genvideo/"), workerDir);
  const { taskId, videoUrl } = await completedTask(worker, "a lighthouse at dusk");

  const url = new URL(videoUrl);
  expect(url.origin).toBe(s3.endpoint);
  expect(url.pathname).toBe(`/${s3.bucket}/genvideo/${taskId}.mp4`);
  const whole = await download(videoUrl);
  expect(whole).toMatchObject({ status: 200, type: "video/mp4" });
  expect(isMp4(whole.body)).toBe(true);
  // Uploaded, not kept: the worker's disk holds no video.
  expect(readdirSync(join(workerDir, "videos")).filter((name) => name.endsWith(".mp4"))).toEqual([]);
  // The server does not serve videos itself with an object store.
  expect((await worker.fetch(`/videos/${taskId}.mp4`)).status).toBe(404);

  // A URL whose signature or object was changed is refused.
  const other = await completedTask(worker, "a second video");
  const forged = new URL(videoUrl);
  forged.searchParams.set("X-Amz-Signature", "0".repeat(64));
  const otherObject = new URL(videoUrl);
  otherObject.pathname = new URL(other.videoUrl).pathname;
  for (const tampered of [forged, otherObject]) {
    const refused = await download(tampered.href);
    expect(refused.status).toBe(403);
    expect(refused.body.toString()).toContain("SignatureDoesNotMatch");
  }
  expect(await worker.stop()).toBe(0);

  // Another process, its own data directory, the same database: it signs its own URL for the same object.
  const api = await start(
    {
      ...s3.serverEnvironment("genvideo/"),
      GENVIDEO_DATABASE_URL: `sqlite:${join(workerDir, "genvideo.db")}`,
    },
    temporaryDataDir(),
  );
  const status = await getStatus(api, taskId);
  expect(status.status).toBe("completed");
  const fromApi = status.video_url as string;
  expect(new URL(fromApi).pathname).toBe(url.pathname);
  const again = await download(fromApi);
  expect(again.status).toBe(200);
  expect(again.body.equals(whole.body)).toBe(true);
  const part = await download(fromApi, "bytes=0-99");
  expect(part).toMatchObject({
    status: 206,
    type: "video/mp4",
    contentRange: `bytes 0-99/${whole.body.length}`,
  });
  expect(part.body.equals(whole.body.subarray(0, 100))).toBe(true);
  expect(existsSync(join(api.dataDir, "videos", `${taskId}.mp4`))).toBe(false);
});

it("the retention sweep deletes the object, logs it, and its URL then answers 404", async () => {
  const server = await start({
    ...s3.serverEnvironment("retention/"),
    GENVIDEO_VIDEO_RETENTION: "1s",
    GENVIDEO_VIDEO_SWEEP_INTERVAL: "200ms",
  });
  const { taskId, videoUrl } = await completedTask(server, "here today");

  const record = await eventually(
    async () =>
      server
        .logRecords()
        .find(
          (entry) =>
            entry.msg === "video retention sweep deleted videos" &&
            (entry.taskIds as string[]).includes(taskId),
        ),
    10_000,
    "the sweep to log the deletion",
  );
  expect(record).toMatchObject({ level: "info", retentionMs: 1000 });
  const gone = await download(videoUrl);
  expect(gone.status).toBe(404);
  expect(gone.body.toString()).toContain("NoSuchKey");
});

it.each([
  [
    { GENVIDEO_VIDEO_STORAGE: "s3://no-such-bucket/videos" },
    /^genvideo-server: GENVIDEO_VIDEO_STORAGE: listing s3:\/\/no-such-bucket\/videos\/ failed: 404 NoSuchBucket/,
  ],
  [
    { AWS_SECRET_ACCESS_KEY: "not-the-secret" },
    /^genvideo-server: AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY: listing s3:\/\/videos\/ failed: 403 SignatureDoesNotMatch/,
  ],
  [{ AWS_ACCESS_KEY_ID: "" }, /^genvideo-server: AWS_ACCESS_KEY_ID must be set/],
])(
  "a bucket it cannot use stops the start with one line naming the setting: %o",
  async (override, message) => {
    const dataDir = servers.removeLater(temporaryDataDir());
    const result = await runCli(["start"], dataDir, { ...s3.serverEnvironment(), ...override });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
    expect(result.stderr).not.toContain("not-the-secret");
    expect(result.stdout).toBe("");
  },
);
