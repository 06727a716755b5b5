// What the scale-out benchmark starts: genvideo processes of each role on one
// PostgreSQL database, graphile-worker runners, and autocannon loads split over
// several API processes.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { serverCli, serverEnvironment, startProcess } from "../server/processes.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

/** Processes started and not yet stopped: if the benchmark dies, they die with it rather than linger. */
const running = new Set();
process.on("exit", () => {
  for (const started of running) started.signal("SIGKILL");
});

/**
 * `genvideo-server start` on `databaseUrl` (PostgreSQL) in `role`, or on SQLite
 * (role all) when `databaseUrl` is undefined. Each process has a data directory
 * of its own, as on separate machines, under `dataRoot` (the system's temp
 * folder by default). `env` adds or overrides settings; `cpu` pins it to that CPU.
 */
export async function startGenvideo({ databaseUrl, role = "all", env = {}, dataRoot = tmpdir(), cpu }) {
  const dataDir = mkdtempSync(join(dataRoot, `genvideo-bench-${role}-`));
  const environment = {
    ...serverEnvironment(dataDir),
    ...(databaseUrl ? { GENVIDEO_DATABASE_URL: databaseUrl, GENVIDEO_ROLE: role } : {}),
    ...env,
  };
  const child = startProcess([serverCli, "start"], environment, { cpu });
  running.add(child);
  const url = await child.url;
  return {
    url,
    environment,
    pid: child.pid,
    signal: child.signal,
    async stop() {
      await child.stop();
      running.delete(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * CPU seconds (user + system) a running process has used so far, from
 * /proc (Linux); undefined elsewhere. Read before and after a drain, it says
 * what a task costs the worker process, whatever else shares the machine.
 */
export function cpuSecondsOf(pid) {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
/** Linux's USER_HZ, the unit of /proc's CPU times, is 100 on every architecture it runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A graphile-worker runner process with a no-op task, resolved once it is ready for jobs. */
export function startGraphileRunner(databaseUrl, concurrency) {
  const child = spawn(process.execPath, [join(here, "graphile-runner.mjs")], {
    env: { ...process.env, DATABASE_URL: databaseUrl, CONCURRENCY: String(concurrency) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const started = {
    signal(name) {
      if (child.exitCode === null && child.signalCode === null) child.kill(name);
    },
  };
  running.add(started);
  child.once("exit", () => running.delete(started));
  let output = "";
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      output += chunk;
      if (!output.includes("ready")) return;
      child.stdout.removeAllListeners("data");
      child.stdout.resume();
      resolve({
        pid: child.pid,
        signal: started.signal,
        stop() {
          if (child.exitCode !== null) return Promise.resolve();
          const exited = new Promise((done) => child.once("exit", done));
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`graphile-worker runner exited with ${code}:\n${output}`)));
  });
}

/**
 * Holds processes still (SIGSTOP) while their queue is filled, then lets them all
 * go at once: the drain that follows measures the workers at work, not how fast
 * processes boot on a busy machine or how fast the queue was filled.
 */
export function hold(processes) {
  for (const started of processes) started.signal("SIGSTOP");
}
export function release(processes) {
  for (const started of processes) started.signal("SIGCONT");
}

/**
 * One autocannon load of `connections` in all, split evenly over `urls` (one
 * API process each) and run at once; requests per second summed.
 */
export async function loadAcross(urls, { connections, duration, amount, path, ...request }) {
  const results = await Promise.all(
    urls.map(
      (url) =>
        new Promise((resolve, reject) => {
          autocannon(
            {
              url: `${url}${path ?? ""}`,
              connections: Math.max(1, Math.round(connections / urls.length)),
              ...(amount ? { amount: Math.ceil(amount / urls.length) } : { duration }),
              ...request,
            },
            (error, result) => (error ? reject(error) : resolve(result)),
          );
        }),
    ),
  );
  return {
    requestsPerSecond: Math.round(results.reduce((sum, result) => sum + result.requests.average, 0)),
    requests: results.reduce((sum, result) => sum + result.requests.total, 0),
    failures: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0),
  };
}

/** Cycles requests through `paths`, so status reads hit many rows (the server bench's own). */
export { cyclingRequests as cycling } from "../server/closed-loop.mjs";

/** Polls `count()` until it returns `target`; resolves with the real seconds that took. */
export async function secondsUntil(count, target, { timeoutMs = 120_000, pollMs = 10 } = {}) {
  const started = performance.now();
  for (;;) {
    // A failed count (a dropped connection) is read again at the next poll.
    const value = await count().catch(() => 0);
    if (value >= target) return (performance.now() - started) / 1000;
    if (performance.now() - started > timeoutMs)
      throw new Error(`only ${value} of ${target} done after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
