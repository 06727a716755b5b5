/**
 * Video retention in the running server: videos older than
 * GENVIDEO_VIDEO_RETENTION are deleted by the sweep that runs at every start
 * and then every GENVIDEO_VIDEO_SWEEP_INTERVAL, each deletion is logged, and
 * the (still validly signed) URL of a deleted video answers 404. The fixture
 * renderer keeps the videos tiny and the tasks fast; retention does not care
 * what the bytes are.
 */
import { readdir, rename, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { completedTask } from "./support/api.js";
import {
  eventually,
  type RunningServer,
  removeDataDir,
  runCli,
  startServer,
  temporaryDataDir,
} from "./support/server-process.js";

const FAST = { GENVIDEO_RENDERER: "fixture", GENVIDEO_TIME_SCALE: "600", GENVIDEO_RATE_LIMITS: "off" };
const SWEEP_MESSAGE = "video retention sweep deleted videos";
const started: RunningServer[] = [];

afterEach(async () => {
  for (const server of started.splice(0)) {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

async function start(env: Record<string, string>, dataDir?: string): Promise<RunningServer> {
  const server = await startServer({ env: { ...FAST, ...env }, ...(dataDir ? { dataDir } : {}) });
  started.push(server);
  return server;
}

async function completedVideoUrl(server: RunningServer, prompt: string) {
  const { taskId, videoUrl } = await completedTask(server, prompt);
  return { taskId, videoUrl: new URL(videoUrl) };
}

/**
 * The same signed path and query against whichever process now serves the
 * data directory; the body is read, so no response holds up a shutdown.
 */
async function on(server: RunningServer, videoUrl: URL): Promise<{ status: number; body: Buffer }> {
  const response = await server.fetch(`${videoUrl.pathname}${videoUrl.search}`);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

/** Where a video is on disk: two folder levels down, named by the start of its task id. */
function videoFile(dataDir: string, taskId: string): string {
  return join(dataDir, "videos", taskId.slice(0, 2), taskId.slice(2, 4), `${taskId}.mp4`);
}

function sweepRecords(server: RunningServer) {
  return server.logRecords().filter((record) => record.msg === SWEEP_MESSAGE);
}

it("the periodic sweep deletes a video past its retention, logs it, and its URL then answers 404", async () => {
  const server = await start({ GENVIDEO_VIDEO_RETENTION: "1s", GENVIDEO_VIDEO_SWEEP_INTERVAL: "200ms" });
  const { taskId, videoUrl } = await completedVideoUrl(server, "here today");

  const record = await eventually(
    async () => sweepRecords(server).find((entry) => (entry.taskIds as string[]).includes(taskId)),
    10_000,
    "the sweep to log the deletion",
  );
  expect(record).toMatchObject({ level: "info", deleted: 1, retentionMs: 1000 });
  const gone = await on(server, videoUrl);
  expect(gone.status).toBe(404);
  expect(JSON.parse(gone.body.toString())).toMatchObject({ error: "Not Found", code: "NOT_FOUND" });
});

// Two server starts and three renders each: more than the default 30 s beside busy cores.
it("the startup sweep deletes videos that aged past the retention while the server was down", {
  timeout: 90_000,
}, async () => {
  const dataDir = temporaryDataDir();
  const first = await start({}, dataDir);
  const old = await completedVideoUrl(first, "an old video");
  const recent = await completedVideoUrl(first, "a recent video");
  expect((await on(first, old.videoUrl)).status).toBe(200);
  expect(await first.stop()).toBe(0);
  started.splice(started.indexOf(first), 1);

  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
  await utimes(videoFile(dataDir, old.taskId), threeDaysAgo, threeDaysAgo);

  const second = await start({ GENVIDEO_VIDEO_RETENTION: "2d" }, dataDir);
  // Swept before the server listened: the record precedes the "listening" line.
  const messages = second.logRecords().map((record) => record.msg);
  expect(messages.indexOf(SWEEP_MESSAGE)).toBeGreaterThanOrEqual(0);
  expect(messages.indexOf(SWEEP_MESSAGE)).toBeLessThan(messages.indexOf("listening"));
  expect(sweepRecords(second)).toEqual([
    expect.objectContaining({ deleted: 1, taskIds: [old.taskId], retentionMs: 2 * 86_400_000 }),
  ]);
  expect((await on(second, old.videoUrl)).status).toBe(404);
  expect((await on(second, recent.videoUrl)).status).toBe(200);
});

it("a bad retention stops the start with one line naming the setting, exit code 2", async () => {
  const dataDir = temporaryDataDir();
  try {
    const result = await runCli(["start"], dataDir, { GENVIDEO_VIDEO_RETENTION: "a week" });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'genvideo-server: GENVIDEO_VIDEO_RETENTION must be a duration like 7d, 12h, 30m or 90s, from 1s to 3650d, got "a week"',
    );
    expect(result.stdout).toBe("");
  } finally {
    removeDataDir(dataDir);
  }
});

it("serves, after an upgrade, videos an earlier version stored flat in the videos folder, and sweeps them", {
  timeout: 90_000,
}, async () => {
  const dataDir = temporaryDataDir();
  const first = await start({}, dataDir);
  const kept = await completedVideoUrl(first, "a video from before");
  const aged = await completedVideoUrl(first, "an older video from before");
  const whole = await on(first, kept.videoUrl);
  expect(await first.stop()).toBe(0);
  started.splice(started.indexOf(first), 1);
  // The layout of earlier versions: every video flat in videos/.
  for (const { taskId } of [kept, aged])
    await rename(videoFile(dataDir, taskId), join(dataDir, "videos", `${taskId}.mp4`));
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
  await utimes(join(dataDir, "videos", `${aged.taskId}.mp4`), threeDaysAgo, threeDaysAgo);

  const second = await start({ GENVIDEO_VIDEO_RETENTION: "2d" }, dataDir);
  expect(sweepRecords(second)).toEqual([expect.objectContaining({ deleted: 1, taskIds: [aged.taskId] })]);
  expect(await on(second, kept.videoUrl)).toEqual({ status: 200, body: whole.body });
  const ranged = await second.fetch(`${kept.videoUrl.pathname}${kept.videoUrl.search}`, {
    headers: { range: "bytes=4-11" },
  });
  expect(ranged.status).toBe(206);
  expect(Buffer.from(await ranged.arrayBuffer())).toEqual(whole.body.subarray(4, 12));
  expect((await on(second, aged.videoUrl)).status).toBe(404);
  // New videos go into the sharded layout beside the old flat ones.
  const fresh = await completedVideoUrl(second, "a video after the upgrade");
  expect(
    await readdir(join(dataDir, "videos", fresh.taskId.slice(0, 2), fresh.taskId.slice(2, 4))),
  ).toContain(`${fresh.taskId}.mp4`);
  expect((await readdir(join(dataDir, "videos"))).filter((name) => name.endsWith(".mp4"))).toEqual([
    `${kept.taskId}.mp4`,
  ]);
});
