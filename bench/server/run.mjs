// `pnpm bench` (server part): the reference server's status reads and creates
// per second against a bare Hono + @hono/node-server JSON route, on the same
// machine in the same run, then status reads with 100 000 tasks stored.
// Targets: status reads >= 50% of the baseline, creates >= 25%.
//
// Shared CI machines drift, so each comparison runs in rounds, baseline then
// server back to back, and the ratio reported is the median of the rounds.
//
// `node bench/server/seeded-status.mjs` runs the last part alone (100 000
// tasks: idle CPU, maximum, p99 at half of it); `BENCH_PARTS=api` runs the
// first two alone (status reads and creates against the baseline), for
// before/after runs that alternate builds. `--smoke` runs one short round of
// each with 1000 tasks: that it works, no verdict.
//
// `--pinned` measures status reads and creates per core: the baseline and the
// server pinned to CPU 0, wrk pinned to CPU 1 (`taskset`), so the load generator
// never takes the server's core and bare Hono on the same core is the per-core
// ceiling; the ratios come from one run. It runs the API part only (the seeded
// part measures latency, with its own clients). Needs 2 CPUs, taskset and wrk.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sized, verdict } from "../smoke.mjs";
import { textTable } from "../text-table.mjs";
import { CONNECTIONS, cyclingRequests, DURATION_S, load, median, WARM_UP_S, warmUp } from "./closed-loop.mjs";
import { auth, createBody, serverCli, settled, startProcess, startSeededServer } from "./processes.mjs";
import { seedTasks } from "./seed-tasks.mjs";
import {
  controlAtSameRate,
  halfLoadLines,
  idleCpuPerSecond,
  SEEDED_TASKS,
  seededSample,
  statusAtHalfLoad,
} from "./seeded-status.mjs";
import { checkPinning, wrkClosedLoop } from "./wrk-load.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
const pinned = process.argv.includes("--pinned");
/** `api` (status reads and creates against the baseline), `seeded` (100 000 tasks), or both (default; `api` pinned). */
const PARTS = (process.env.BENCH_PARTS ?? (pinned ? "api" : "api,seeded")).split(",");

async function json(url, init) {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

function summarise(name, rows, baselines) {
  const pick = (key) => median(rows.map((row) => row[key]));
  return {
    name,
    requestsPerSecond: pick("requestsPerSecond"),
    p50: pick("p50"),
    p99: pick("p99"),
    ratio: baselines
      ? median(rows.map((row, index) => row.requestsPerSecond / baselines[index].requestsPerSecond))
      : undefined,
    non2xx: rows.reduce((sum, row) => sum + row.non2xx, 0),
    errors: rows.reduce((sum, row) => sum + row.errors, 0),
  };
}

/**
 * The load generator of the API part, closed loops of `CONNECTIONS`: autocannon in this process,
 * or, pinned, wrk on CPU 1 while the servers run on CPU 0, so the generator never takes the
 * server's core and bare Hono on that core is the per-core ceiling. A workload is `paths` of
 * `origin` in turn, GETs or one POST `body`.
 */
const generator = pinned
  ? {
      async load(name, { origin, paths, headers, method, body }) {
        const result = await wrkClosedLoop({
          url: origin,
          paths,
          headers,
          method,
          body,
          seconds: DURATION_S,
          cpu: 1,
        });
        const row = {
          name,
          requestsPerSecond: result.requestsPerSecond,
          p50: result.p50,
          p99: result.p99,
          non2xx: result.non2xx,
          errors: result.failures,
        };
        console.error(`  ${name}: ${row.requestsPerSecond} req/s, p99 ${row.p99} ms (wrk on CPU 1)`);
        return row;
      },
      warmUp: async ({ origin, paths, headers, method, body }) => {
        if (WARM_UP_S > 0)
          await wrkClosedLoop({ url: origin, paths, headers, method, body, seconds: WARM_UP_S, cpu: 1 });
      },
    }
  : {
      load: (name, workload) => load(name, autocannonOptions(workload)),
      warmUp: (workload) => warmUp(autocannonOptions(workload)),
    };

function autocannonOptions({ origin, paths, headers, method = "GET", body }) {
  return method === "GET"
    ? { url: origin, requests: cyclingRequests(paths, headers) }
    : { url: `${origin}${paths[0]}`, headers, method, body };
}

async function main() {
  if (pinned) checkPinning();
  const cpu = pinned ? 0 : undefined;
  const baseline = startProcess([join(here, "baseline-server.mjs")], { PORT: "0" }, { cpu });
  let started;
  try {
    console.error(
      `genvideo server bench: ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections, ${cpus().length} CPUs` +
        (pinned ? ", servers pinned to CPU 0, wrk to CPU 1" : ""),
    );
    started = await startSeededServer({ cpu });
    const { child: server, url, env, dbPath, taskIds } = started;
    const baselineUrl = await baseline.url;
    const { account_id: accountId } = await json(`${url}/api/gen/account`, { headers: auth });
    await settled(dbPath);

    const runs = { baseGet: [], status: [], basePost: [], creates: [] };
    const statusPaths = taskIds.map((id) => `/api/gen/status/${id}`);
    const reads = (origin) => ({ origin, paths: statusPaths, headers: auth });
    const creates = (origin) => ({
      origin,
      paths: ["/api/gen/generate"],
      headers: { ...auth, "content-type": "application/json" },
      method: "POST",
      body: createBody,
    });
    await generator.warmUp(reads(baselineUrl));
    await generator.warmUp(reads(url));
    for (let round = 0; round < ROUNDS; round++) {
      runs.baseGet.push(await generator.load("baseline GET", reads(baselineUrl)));
      runs.status.push(await generator.load("server status reads", reads(url)));
    }
    await generator.warmUp(creates(baselineUrl));
    await generator.warmUp(creates(url));
    await settled(dbPath);
    for (let round = 0; round < ROUNDS; round++) {
      runs.basePost.push(await generator.load("baseline POST", creates(baselineUrl)));
      runs.creates.push(await generator.load("server creates", creates(url)));
      await settled(dbPath);
    }
    await server.stop();

    const seeded = PARTS.includes("seeded")
      ? await seededPart({ env, dbPath, accountId, baselineUrl, baselinePath: statusPaths[0] })
      : undefined;
    report(
      [
        summarise("baseline GET (bare Hono JSON)", runs.baseGet),
        summarise("baseline POST (bare Hono JSON)", runs.basePost),
        summarise("server GET /api/gen/status/:id", runs.status, runs.baseGet),
        summarise("server POST /api/gen/generate", runs.creates, runs.basePost),
        ...(seeded ? [seeded.summary] : []),
      ],
      seeded,
    );
  } finally {
    await Promise.all([started?.child.stop(), baseline.stop()]);
    started?.remove();
  }
}

/**
 * Status reads with 100 000 tasks stored, after the API part: the same data
 * directory, seeded, and a fresh server whose caches hold nothing yet.
 */
async function seededPart({ env, dbPath, accountId, baselineUrl, baselinePath }) {
  console.error(`  seeding ${SEEDED_TASKS} tasks…`);
  const seeded = seedTasks(dbPath, accountId, SEEDED_TASKS);
  const server = startProcess([serverCli, "start"], env);
  try {
    const url = await server.url;
    const sample = seededSample(seeded);
    const idleCpu = await idleCpuPerSecond(server.pid);
    await warmUp({ url, requests: cyclingRequests(sample, auth) });
    const baseGet = [];
    const status = [];
    for (let round = 0; round < ROUNDS; round++) {
      baseGet.push(await load("baseline GET", { url: `${baselineUrl}${baselinePath}` }));
      status.push(
        await load(`server status reads, ${SEEDED_TASKS} tasks`, {
          url,
          requests: cyclingRequests(sample, auth),
        }),
      );
    }
    // Latency where it is not queueing: an open loop at half the measured maximum.
    const halfLoad = await statusAtHalfLoad({ url, paths: sample, pid: server.pid });
    const control = halfLoad && (await controlAtSameRate({ baselineUrl, halfLoad }));
    return {
      summary: summarise(`server status, ${SEEDED_TASKS} tasks stored`, status, baseGet),
      halfLoad,
      lines: halfLoadLines({ halfLoad, idleCpu, load1: loadavg()[0], control }),
    };
  } finally {
    await server.stop();
  }
}

function report(results, seeded) {
  const [, , status, creates, statusSeeded] = results;
  const table = [
    ["workload", "req/s", "p50 ms", "p99 ms", "vs baseline"],
    ...results.map((row) => [
      row.name,
      String(row.requestsPerSecond),
      String(row.p50),
      String(row.p99),
      row.ratio === undefined ? "" : `${(row.ratio * 100).toFixed(0)}%`,
    ]),
  ];
  const share = (value, target) =>
    `${(value * 100).toFixed(0)}% (target >= ${target * 100}%: ${verdict(value >= target)})`;
  console.log(
    `medians of ${ROUNDS} rounds, ${DURATION_S} s each, ${CONNECTIONS} connections, ${cpus().length} CPUs`,
  );
  console.log(textTable(table));
  console.log("");
  if (pinned) {
    console.log("servers pinned to CPU 0, wrk to CPU 1 (closed loops); the baseline is the per-core ceiling");
    console.log(`status reads vs bare Hono on its core: ${share(status.ratio, 0.5)}`);
    console.log(`creates vs bare Hono on its core:      ${share(creates.ratio, 0.25)}`);
  } else {
    console.log(`status reads vs baseline GET:  ${share(status.ratio, 0.5)}`);
    console.log(`creates vs baseline POST:      ${share(creates.ratio, 0.25)}`);
  }
  if (seeded) {
    console.log(`status p99 with ${SEEDED_TASKS} tasks: ${statusSeeded.p99} ms (${status.p99} ms with 200)`);
    for (const line of seeded.lines) console.log(line);
  }
  for (const row of results.filter((r) => r.non2xx > 0 || r.errors > 0)) {
    console.log(`warning: ${row.name}: ${row.non2xx} non-2xx, ${row.errors} errors`);
  }
  mkdirSync(join(here, "../results"), { recursive: true });
  writeFileSync(
    join(here, `../results/${pinned ? "server-pinned" : "server"}.json`),
    `${JSON.stringify({ date: new Date().toISOString(), results, halfLoad: seeded?.halfLoad }, null, 2)}\n`,
  );
}

await main();
