/**
 * Secrets at rest: the database holds the webhook secrets and the video-URL
 * signing key in plaintext, so the data directory is the server's user's
 * alone: directories 0700, the database (and its -wal and -shm) and the
 * videos 0600, under the usual permissive umask (022). An install an older
 * version left readable by everyone is narrowed at start, and the log says so once.
 */
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { completedTask } from "./support/api.js";
import { FAST_SERVICE_ENV, temporaryDataDir } from "./support/server-process.js";
import { serverSet } from "./support/use-server.js";

const NARROWED = "file modes narrowed: the data is readable by the server's user only";
const servers = serverSet();

// The server inherits the test process's umask: the permissive one most machines have.
let umaskBefore: number;
beforeAll(() => {
  umaskBefore = process.umask(0o022);
});
afterAll(() => {
  process.umask(umaskBefore);
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every directory and file under `root` (itself included), with its mode. */
function modesUnder(root: string): Map<string, string> {
  const modes = new Map([[root, modeOf(root)]]);
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    modes.set(path, modeOf(path));
  }
  return modes;
}

async function startOn(dataDir: string) {
  return servers.start({
    dataDir: join(dataDir, ".."),
    // 60x, not 600x: a render must beat the 10-minute deadline (10 s here) beside busy cores.
    env: { ...FAST_SERVICE_ENV, GENVIDEO_TIME_SCALE: "60", GENVIDEO_DATA_DIR: dataDir },
  });
}

it("creates the data directory 0700 and the database, its WAL and the videos 0600 under umask 022", async () => {
  const dataDir = join(servers.removeLater(temporaryDataDir()), "data");
  const server = await startOn(dataDir);
  const { taskId } = await completedTask(server, "kept private");

  const modes = modesUnder(dataDir);
  for (const name of ["genvideo.db", "genvideo.db-wal", "genvideo.db-shm"])
    expect(modes.get(join(dataDir, name)), name).toBe("600");
  const video = [...modes.keys()].find((path) => path.includes(taskId) && path.endsWith(".mp4"));
  expect(video, "the task's video file").toBeDefined();
  for (const [path, mode] of modes) {
    expect(mode, path).toBe(statSync(path).isDirectory() ? "700" : "600");
  }
  expect(server.logRecords().filter((record) => record.msg === NARROWED)).toEqual([]);
});

// Three starts in a row: on a machine running other suites each can take seconds.
it("narrows an existing install's data directory and database at start, and says so once", {
  timeout: 120_000,
}, async () => {
  const dataDir = join(servers.removeLater(temporaryDataDir()), "data");
  const first = await startOn(dataDir);
  await completedTask(first, "written by an older version");
  await servers.stopAll();
  // What an older version left: everything readable by every local user.
  chmodSync(dataDir, 0o755);
  chmodSync(join(dataDir, "genvideo.db"), 0o644);

  const second = await startOn(dataDir);
  expect(modeOf(dataDir)).toBe("700");
  expect(modeOf(join(dataDir, "genvideo.db"))).toBe("600");
  const narrowed = second.logRecords().filter((record) => record.msg === NARROWED);
  expect(narrowed).toEqual([
    expect.objectContaining({
      level: "info",
      paths: [`${dataDir} 755 -> 700`, `${join(dataDir, "genvideo.db")} 644 -> 600`],
    }),
  ]);
  await servers.stopAll();

  const third = await startOn(dataDir);
  expect(third.logRecords().filter((record) => record.msg === NARROWED)).toEqual([]);
});
