/**
 * Videos on S3-compatible storage with the roles split over processes on one
 * PostgreSQL database, each process on its own data directory: a worker
 * renders and uploads, an api process hands out the presigned `video_url`,
 * which downloads the MP4 from the bucket (200, 206 for a Range, video/mp4)
 * and is refused when tampered with; a worker's retention sweep deletes the
 * object. A local s3rver (in this process) stands in for the bucket.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { completedTask } from "../support/api.js";
import { download, isMp4 } from "../support/downloads.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { useLocalS3 } from "../support/s3-server.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  type RunningServer,
  temporaryDataDir,
} from "../support/server-process.js";
import { serverSet } from "../support/use-server.js";

const s3 = useLocalS3();
const servers = serverSet();

/** A process of one role on the shared database, on a data directory of its own. */
function start(databaseUrl: string, role: "api" | "worker", env: Record<string, string> = {}) {
  return servers.start({
    dataDir: temporaryDataDir(),
    startTimeoutMs: 60_000,
    env: {
      ...FAST_SERVICE_ENV,
      // At 30x the deadline is 20 s away: room for processes on a busy machine.
      GENVIDEO_TIME_SCALE: "30",
      GENVIDEO_DATABASE_URL: databaseUrl,
      GENVIDEO_ROLE: role,
      ...s3.serverEnvironment("cluster/"),
      ...env,
    },
  });
}

function videoFiles(server: RunningServer): string[] {
  try {
    return readdirSync(join(server.dataDir, "videos")).filter((name) => name.endsWith(".mp4"));
  } catch {
    return [];
  }
}

describePostgres("videos on S3 with api and worker processes on PostgreSQL", () => {
  it("the api process's video_url downloads what the worker uploaded; tampering is refused; retention deletes it", async () => {
    const databaseUrl = await freshDatabase();
    const [worker, api] = await Promise.all([start(databaseUrl, "worker"), start(databaseUrl, "api")]);
    expect(api.dataDir).not.toBe(worker.dataDir);

    const { taskId, videoUrl } = await completedTask(api, "a lighthouse at dusk", 30_000);
    expect(api.logRecords().some((entry) => entry.msg === "video retention sweep deleted videos")).toBe(
      false,
    );
    const url = new URL(videoUrl);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.pathname).toBe(`/${s3.bucket}/cluster/${taskId}.mp4`);

    const whole = await download(videoUrl);
    expect(whole).toMatchObject({ status: 200, type: "video/mp4" });
    expect(isMp4(whole.body)).toBe(true);
    const part = await download(videoUrl, "bytes=0-99");
    expect(part).toMatchObject({
      status: 206,
      type: "video/mp4",
      contentRange: `bytes 0-99/${whole.body.length}`,
    });
    expect(part.body.equals(whole.body.subarray(0, 100))).toBe(true);
    // Neither process keeps the video on its own disk.
    expect([...videoFiles(api), ...videoFiles(worker)]).toEqual([]);

    const forged = new URL(videoUrl);
    forged.searchParams.set("X-Amz-Signature", "0".repeat(64));
    const refused = await download(forged.href);
    expect(refused.status).toBe(403);
    expect(refused.body.toString()).toContain("SignatureDoesNotMatch");

    // A second worker, with a one-second retention: its sweep deletes the object, and the URL then answers 404.
    const sweeper = await start(databaseUrl, "worker", {
      GENVIDEO_VIDEO_RETENTION: "1s",
      GENVIDEO_VIDEO_SWEEP_INTERVAL: "200ms",
    });
    await eventually(
      async () =>
        sweeper
          .logRecords()
          .find(
            (entry) =>
              entry.msg === "video retention sweep deleted videos" &&
              (entry.taskIds as string[]).includes(taskId),
          ),
      15_000,
      "the sweep to delete the video",
    );
    const gone = await download(videoUrl);
    expect(gone.status).toBe(404);
    expect(gone.body.toString()).toContain("NoSuchKey");
    // Starting three processes on a busy machine takes a while.
  }, 180_000);
});
