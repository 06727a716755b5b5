/**
 * The server as it ships: built by the package's own tsup config, started
 * from the bundle, rendering a real video: what works from the sources must
 * work from the bundle (the ffmpeg that the npm package ships, sharp's
 * prebuilt binaries, the built-in font), with no warning in its log.
 *
 * The build goes to a private directory (inside node_modules, so the bundle
 * resolves the package's dependencies), never to dist/, which other test
 * runs (GENVIDEO_TEST_SERVER=dist) may be using. Like that mode, it needs the
 * workspace packages built (`pnpm test` builds them first): the bundle imports
 * @genvideo/engine and @genvideo/schema from their dist.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, expect, it } from "vitest";
import { createTask, waitForTerminal } from "./support/api.js";
import { probeVideo } from "./support/decode-video.js";
import { useServer } from "./support/use-server.js";

const run = promisify(execFile);
const serverRoot = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const tsupPackage = require.resolve("tsup/package.json");
const tsupCli = join(
  dirname(tsupPackage),
  (require(tsupPackage) as { bin: Record<string, string> }).bin.tsup ?? "dist/cli-default.js",
);

const cacheDir = join(serverRoot, "node_modules/.cache");
// A fresh clone has no node_modules/.cache yet.
mkdirSync(cacheDir, { recursive: true });
const buildDir = mkdtempSync(join(cacheDir, "genvideo-built-server-"));

beforeAll(async () => {
  // The package's tsup.config.ts as is; only the output directory differs.
  await run(process.execPath, [tsupCli, "--out-dir", buildDir, "--silent"], { cwd: serverRoot });
}, 60_000);

// Started after the build above (hooks run in the order they are registered).
const server = useServer({
  cli: join(buildDir, "cli.js"),
  env: { GENVIDEO_TIME_SCALE: "30", GENVIDEO_RATE_LIMITS: "off" },
  startTimeoutMs: 20_000,
  hookTimeoutMs: 30_000,
  afterStop: () => rmSync(buildDir, { recursive: true, force: true }),
});

it("says at startup that it renders synthetic videos, and renders a real H.264 MP4", async () => {
  const line = server.logRecords().find((record) => record.renderer === "synthetic");
  expect(line).toMatchObject({ level: "info" });

  const taskId = await createTask(server, { prompt: "a lighthouse at dawn, built and bundled" });
  const done = await waitForTerminal(server, taskId, 30_000);
  expect(done).toMatchObject({ status: "completed" });
  const response = await fetch(done.video_url as string);
  expect(response.status).toBe(200);
  const file = join(server.dataDir, "downloaded.mp4");
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  const probe = await probeVideo(file);
  expect(probe.durationSeconds).toBeCloseTo(5, 1);
  expect(probe).toMatchObject({
    codecName: "h264",
    profile: "High",
    pixelFormat: "yuv420p",
    width: 640,
    height: 360,
    frameCount: 120,
    frameRate: "24/1",
  });
  // Nothing in the log says the render fell back or failed.
  expect(server.logRecords().filter((record) => record.level === "warn" || record.level === "error")).toEqual(
    [],
  );
}, 40_000);
