// Status-read loads from wrk, a load generator written in C (Debian's `wrk`),
// for the latency figures. The client shares the machine with the server, so
// whatever it costs is taken from the server, and its own pauses are counted
// as the server's latency. At 8000 reads a second a Node client (undici) used
// 38% of a core, three quarters of it JavaScript whose garbage collection and
// event loop delayed its own timestamps (the bare Hono control missed the 5 ms
// target through it); wrk used 18%, nearly all of it the kernel's TCP work
// that any client pays.
//
// The script it runs, `wrk-load.lua`, says what is measured: wrk's own timer
// from a request's write to its answer's last byte, and, in the open loop, how
// late each request went out against its schedule (the send lag).
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./wrk-load.lua", import.meta.url));
/** Connections of the closed loop, as for the autocannon rounds. */
const CLOSED_LOOP_CONNECTIONS = 50;
/** Connections of the open loop: free ones take the next due request, so a stall of ~5 ms at 12k req/s leaves none waiting. */
const OPEN_LOOP_CONNECTIONS = 64;

/** Whether `wrk` is on the PATH; the half-load line says how to get it when not. */
export function wrkAvailable() {
  return spawnSync("wrk", ["-v"], { stdio: "ignore" }).error === undefined;
}

export const WRK_MISSING =
  "wrk is not installed (Debian: apt-get install wrk): the status p99 at half load was not measured";

/**
 * Throws, saying what is missing, where a pinned run (`--pinned`: servers on CPU 0, the load
 * generator on CPU 1) cannot run.
 */
export function checkPinning() {
  const missing = [
    ...(cpus().length < 2 ? [`a second CPU (this machine has ${cpus().length})`] : []),
    ...(spawnSync("taskset", ["-V"], { stdio: "ignore" }).error ? ["taskset (Debian: util-linux)"] : []),
    ...(wrkAvailable() ? [] : ["wrk (Debian: wrk)"]),
  ];
  if (missing.length > 0) throw new Error(`--pinned needs ${missing.join(", ")}`);
}

/** The most status reads per second a closed loop of 50 connections gets from `url`. */
export async function wrkMaximum({ url, paths, headers = {}, seconds }) {
  const result = await wrkClosedLoop({ url, paths, headers, seconds });
  return result.requestsPerSecond;
}

/**
 * A closed loop of `connections` (50) for `seconds` (rounded to whole seconds, at least one): `paths`
 * of `url` in turn, GETs or `method` with `body`; wrk pinned to CPU `cpu` when given
 * (`taskset`). Resolves with the rate, latency percentiles in ms, non-2xx and failed counts.
 */
export async function wrkClosedLoop({
  url,
  paths,
  headers = {},
  method,
  body,
  seconds,
  connections = CLOSED_LOOP_CONNECTIONS,
  cpu,
}) {
  const result = await runWrk({ url, paths, headers, method, body, seconds, connections, cpu });
  return { ...result, requestsPerSecond: Math.round(result.requests / (result.durationMs / 1000)) };
}

/**
 * GETs `paths` in turn at `rate` per second for `seconds` (an open loop).
 * Resolves with latency percentiles in ms (written → answered), the send lag
 * percentiles, the rate achieved, and the non-2xx and failed counts.
 */
export async function wrkFixedRate({ url, paths, headers = {}, rate, seconds }) {
  const result = await runWrk({
    url,
    paths,
    headers,
    seconds,
    connections: OPEN_LOOP_CONNECTIONS,
    rate,
  });
  return {
    ...result,
    offeredRate: rate,
    achievedRate: Math.round(result.requests / (result.durationMs / 1000)),
  };
}

async function runWrk({ url, paths, headers, method, body, seconds, connections, rate, cpu }) {
  const folder = mkdtempSync(join(tmpdir(), "genvideo-wrk-"));
  try {
    const pathsFile = join(folder, "paths.txt");
    writeFileSync(pathsFile, `${paths.join("\n")}\n`);
    const headerFlags = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
    const args = [
      "wrk",
      "-t1",
      `-c${connections}`,
      `-d${Math.max(1, Math.round(seconds))}s`,
      "--timeout",
      "30s",
      ...headerFlags,
      "-s",
      script,
      url,
      "--",
      pathsFile,
    ];
    const env = {
      ...process.env,
      ...(rate === undefined ? {} : { WRK_RATE: String(rate) }),
      ...(method === undefined ? {} : { WRK_METHOD: method }),
      ...(body === undefined ? {} : { WRK_BODY: body }),
    };
    const [command, ...rest] = cpu === undefined ? args : ["taskset", "-c", String(cpu), ...args];
    const stdout = await new Promise((resolve, reject) => {
      execFile(command, rest, { env }, (error, out, err) =>
        error ? reject(new Error(`wrk failed: ${error.message}\n${err}`)) : resolve(out),
      );
    });
    const line = stdout.split("\n").find((text) => text.startsWith("WRK_RESULT "));
    if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
    return JSON.parse(line.slice("WRK_RESULT ".length));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
