// Starting and stopping the servers under test as child processes.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { sized, smoke } from "../smoke.mjs";

/** The built CLI the benchmarks start: they measure what users run. */
export const serverCli = join(fileURLToPath(new URL(".", import.meta.url)), "../../apps/server/dist/cli.js");
export const API_KEY = "bench_key_0123456789abcdefghijklmnop";
export const auth = { authorization: `Bearer ${API_KEY}` };
export const createBody = JSON.stringify({ prompt: "a lighthouse at dusk, waves rolling in" });

/** The server under test: on disk in `dataDir`, no rate limits, the bootstrap key above. */
export function serverEnvironment(dataDir, { logLevel = "info" } = {}) {
  return {
    PORT: "0",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_RATE_LIMITS: "off",
    // A fixed tiny MP4: real renders would take the CPU the API is measured on.
    GENVIDEO_RENDERER: "fixture",
    // Generation takes one real second, so the worker settles between runs.
    GENVIDEO_TIME_SCALE: "60",
    GENVIDEO_BOOTSTRAP_API_KEY: API_KEY,
    GENVIDEO_LOG_LEVEL: logLevel,
  };
}

/**
 * Gives the server's default account credits for any load, then creates `count`
 * tasks (200, 20 in smoke mode) whose ids the status-read benchmarks cycle through. Callers wait for the
 * worker to settle them in their own way.
 */
export async function seedStatusTargets({ url, serverCli, env, auth, body, count = sized(200, 20) }) {
  execFileSync(process.execPath, [serverCli, "accounts", "credit", "default", "100000000"], {
    env: { ...process.env, ...env },
    stdio: "ignore",
  });
  const headers = { ...auth, "content-type": "application/json" };
  const ids = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${url}/api/gen/generate`, { method: "POST", headers, body });
    ids.push((await response.json()).task_id);
  }
  return ids;
}

/**
 * Starts `node args…` with `env` over this process's environment; pinned to CPU `cpu` when given
 * (`taskset`, which becomes the node process: `pid` is node's). Resolves `url` once it logs that
 * it listens.
 */
export function startProcess(args, env, { cpu } = {}) {
  const [command, ...rest] =
    cpu === undefined
      ? [process.execPath, ...args]
      : ["taskset", "-c", String(cpu), process.execPath, ...args];
  const child = spawn(command, rest, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /"msg":"listening"[^\n]*?"url":"([^"]+)"|"url":"([^"]+)"[^\n]*?"msg":"listening"/.exec(
        output,
      );
      if (match) {
        child.stdout.off("data", onData);
        // Keep draining stdout: a full pipe would stall the server's logger.
        child.stdout.resume();
        resolve(match[1] ?? match[2]);
      }
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    pid: child.pid,
    output: () => output,
    /** Sends `name` (SIGSTOP, SIGCONT, SIGKILL) while the process runs; never to a pid it no longer owns. */
    signal(name) {
      if (child.exitCode === null && child.signalCode === null) child.kill(name);
    },
    stop() {
      if (child.exitCode !== null) return Promise.resolve(child.exitCode);
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Waits until the worker has finished every task: a busy worker would slow whichever run comes next. */
export async function settled(dbPath) {
  const database = new DatabaseSync(dbPath, { readOnly: true });
  try {
    for (;;) {
      const { open } = database
        .prepare("select count(*) as open from tasks where state in ('queued', 'processing')")
        .get();
      if (open === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    database.close();
  }
}

/**
 * The built server on a fresh data directory, with status targets to read: started with
 * serverEnvironment's settings (`env` added over them, `nodeArgs(dataDir)` before the CLI,
 * pinned to CPU `cpu` when given),
 * its account credited and `seedStatusTargets`' tasks created. The caller waits for the
 * worker to settle them; `remove()` deletes the data directory once the server has stopped.
 * In smoke mode a task's service time passes in a few real milliseconds, so that wait is short.
 */
export async function startSeededServer({
  name = "bench",
  env: extra = {},
  logLevel,
  nodeArgs = () => [],
  cpu,
} = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), `genvideo-${name}-`));
  const env = {
    ...serverEnvironment(dataDir, { logLevel }),
    ...(smoke ? { GENVIDEO_TIME_SCALE: "3600" } : {}),
    ...extra,
  };
  const child = startProcess([...nodeArgs(dataDir), serverCli, "start"], env, { cpu });
  const remove = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const url = await child.url;
    const taskIds = await seedStatusTargets({ url, serverCli, env, auth, body: createBody });
    return { child, url, env, dataDir, dbPath: join(dataDir, "genvideo.db"), taskIds, remove };
  } catch (error) {
    await child.stop();
    remove();
    throw error;
  }
}
