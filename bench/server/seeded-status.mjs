// Status reads with 100 000 tasks stored: the server's maximum rate (closed
// loop), then latency at a fixed rate of half that maximum (open loop), both
// with wrk (see wrk-load.mjs), and what the idle server costs in CPU
// beforehand. `run.mjs` calls these; run alone, this file measures only that
// part (a quicker loop while working on the server's latency):
//
//   node bench/server/seeded-status.mjs
//
// BENCH_SEEDED_TASKS, BENCH_ROUNDS, BENCH_DURATION, BENCH_FIXED_RATE_SECONDS
// and BENCH_IDLE_SECONDS size it; --smoke makes it a few seconds (1000 tasks).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sized, verdict } from "../smoke.mjs";
import { cyclingRequests, DURATION_S, median, warmUp } from "./closed-loop.mjs";
import { cpuMicros, runQueueWaitMs } from "./process-cpu.mjs";
import { auth, serverCli, serverEnvironment, startProcess } from "./processes.mjs";
import { seedTasks } from "./seed-tasks.mjs";
import { WRK_MISSING, wrkAvailable, wrkFixedRate, wrkMaximum } from "./wrk-load.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
export const SEEDED_TASKS = Number(process.env.BENCH_SEEDED_TASKS ?? sized(100_000, 1000));
export const FIXED_RATE_S = Number(process.env.BENCH_FIXED_RATE_SECONDS ?? sized(10, 1));
const IDLE_S = Number(process.env.BENCH_IDLE_SECONDS ?? sized(5, 0.5));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
/** The target for the status read p99 at half the maximum rate: under 5 ms. */
const P99_TARGET_MS = 5;

/** Status paths spread over the seeded ids, so reads hit many pages rather than one. */
export function seededSample(ids, count = 5000) {
  return Array.from({ length: count }, (_, index) => `/api/gen/status/${ids[(index * 7919) % ids.length]}`);
}

/**
 * CPU milliseconds per second the server process spends with no request to
 * answer (its worker ticks, timers, housekeeping); undefined without /proc.
 */
export async function idleCpuPerSecond(pid, seconds = IDLE_S) {
  const before = cpuMicros(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = cpuMicros(pid);
  if (before === undefined || after === undefined) return undefined;
  return Math.round((after - before) / (performance.now() - started));
}

/**
 * The status-read maximum as a client that costs little measures it (wrk's
 * closed loop, median of `ROUNDS`), then an open loop at half of it, with the
 * time the server's main thread spent waiting for a CPU meanwhile. Undefined
 * where wrk is missing.
 */
export async function statusAtHalfLoad({ url, paths, pid, seconds = FIXED_RATE_S }) {
  if (!wrkAvailable()) return undefined;
  const maxima = [];
  for (let round = 0; round < ROUNDS; round++) {
    maxima.push(await wrkMaximum({ url, paths, headers: auth, seconds: DURATION_S }));
  }
  const maximum = median(maxima);
  const waitedBefore = runQueueWaitMs(pid);
  const result = await wrkFixedRate({
    url,
    paths,
    headers: auth,
    rate: Math.max(1, Math.round(maximum / 2)),
    seconds,
  });
  const waitedAfter = runQueueWaitMs(pid);
  const cpuWaitMs =
    waitedBefore === undefined || waitedAfter === undefined
      ? undefined
      : Math.round(waitedAfter - waitedBefore);
  return { ...result, maximum, maxima, cpuWaitMs };
}

/**
 * The same open loop against the bare Hono route (`baseline-server.mjs`), at
 * the rate the server got and for as long: what the machine and the client
 * add to any server's latency there and then. A p99 the control shares is
 * the machine's, not the server's.
 */
export function controlAtSameRate({ baselineUrl, halfLoad, seconds = FIXED_RATE_S }) {
  return wrkFixedRate({
    url: baselineUrl,
    paths: ["/api/gen/status/control"],
    rate: halfLoad.offeredRate,
    seconds,
  });
}

/** The bench line: what the p99 measures, its neighbours, the client's own lag, the load it ran beside. */
export function halfLoadLines({ halfLoad, idleCpu, load1, control }) {
  if (!halfLoad) return [WRK_MISSING];
  const shortfall =
    halfLoad.achievedRate < halfLoad.offeredRate * 0.95
      ? `; the client offered only ${halfLoad.achievedRate} of ${halfLoad.offeredRate} req/s`
      : "";
  return [
    `status p99 with ${SEEDED_TASKS} tasks at half the maximum (${halfLoad.achievedRate} req/s of ${halfLoad.maximum} max, ` +
      `wrk open loop, ${FIXED_RATE_S} s, written → answered): ${halfLoad.p99} ms (p50 ${halfLoad.p50}, p99.9 ${halfLoad.p999}, ` +
      `max ${halfLoad.max}; target < ${P99_TARGET_MS} ms: ${verdict(halfLoad.p99 < P99_TARGET_MS)}${shortfall})`,
    `  maximum: wrk closed loop, 50 connections, median of ${halfLoad.maxima.join(", ")} req/s; ` +
      `client send lag (due → written): p50 ${halfLoad.sendLag.p50}, p99 ${halfLoad.sendLag.p99}, max ${halfLoad.sendLag.max} ms` +
      `${halfLoad.non2xx + halfLoad.failures > 0 ? `; ${halfLoad.non2xx} non-2xx, ${halfLoad.failures} failed` : ""}`,
    `  server's main thread runnable but waiting for a CPU held by other processes (the client included): ${halfLoad.cpuWaitMs ?? "?"} ms ` +
      `of the ${FIXED_RATE_S} s (0 on a quiet machine; requests arriving then wait for the machine)`,
    ...(control
      ? [
          `  control, bare Hono JSON route at the same rate right after (the machine's and the client's share): ` +
            `p50 ${control.p50}, p99 ${control.p99}, max ${control.max} ms at ${control.achievedRate} req/s`,
        ]
      : []),
    `  idle server CPU with ${SEEDED_TASKS} tasks: ${idleCpu ?? "?"} ms per second; load average ${load1.toFixed(2)}`,
  ];
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-seeded-"));
  const baseline = startProcess([join(here, "baseline-server.mjs")], { PORT: "0" });
  let server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
  try {
    const url = await server.url;
    const account = await fetch(`${url}/api/gen/account`, { headers: auth }).then((r) => r.json());
    await server.stop();
    console.error(`  seeding ${SEEDED_TASKS} tasks…`);
    const ids = seedTasks(join(dataDir, "genvideo.db"), account.account_id, SEEDED_TASKS);
    server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
    const seededUrl = await server.url;
    const paths = seededSample(ids);
    const idleCpu = await idleCpuPerSecond(server.pid);
    await warmUp({ url: seededUrl, requests: cyclingRequests(paths, auth) });
    const halfLoad = await statusAtHalfLoad({ url: seededUrl, paths, pid: server.pid });
    const control = halfLoad && (await controlAtSameRate({ baselineUrl: await baseline.url, halfLoad }));
    // The last minute's load: the half-load run and the rounds before it, beside whatever else ran.
    const load1 = loadavg()[0];
    for (const line of halfLoadLines({ halfLoad, idleCpu, load1, control })) console.log(line);
  } finally {
    await Promise.all([server.stop(), baseline.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
