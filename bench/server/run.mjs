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
// before/after runs that alternate builds.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { textTable } from "../text-table.mjs";
import { CONNECTIONS, cyclingRequests, DURATION_S, load, median, warmUp } from "./closed-loop.mjs";
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

const here = fileURLToPath(new URL(".", import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** `api` (status reads and creates against the baseline), `seeded` (100 000 tasks), or both (default). */
const PARTS = (process.env.BENCH_PARTS ?? "api,seeded").split(",");

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

async function main() {
  const baseline = startProcess([join(here, "baseline-server.mjs")], { PORT: "0" });
  let started;
  try {
    console.error(
      `genvideo server bench: ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections, ${cpus().length} CPUs`,
    );
    started = await startSeededServer();
    const { child: server, url, env, dbPath, taskIds } = started;
    const baselineUrl = await baseline.url;
    const { account_id: accountId } = await json(`${url}/api/gen/account`, { headers: auth });
    await settled(dbPath);

    const runs = { baseGet: [], status: [], basePost: [], creates: [] };
    const statusPaths = taskIds.map((id) => `/api/gen/status/${id}`);
    await warmUp({ url: `${baselineUrl}${statusPaths[0]}` });
    await warmUp({ url, requests: cyclingRequests(statusPaths, auth) });
    for (let round = 0; round < ROUNDS; round++) {
      runs.baseGet.push(await load("baseline GET", { url: `${baselineUrl}${statusPaths[0]}` }));
      runs.status.push(
        await load("server status reads", { url, requests: cyclingRequests(statusPaths, auth) }),
      );
    }
    const post = { method: "POST", body: createBody };
    await warmUp({
      url: `${baselineUrl}/api/gen/generate`,
      headers: { "content-type": "application/json" },
      ...post,
    });
    await warmUp({
      url: `${url}/api/gen/generate`,
      headers: { ...auth, "content-type": "application/json" },
      ...post,
    });
    await settled(dbPath);
    for (let round = 0; round < ROUNDS; round++) {
      runs.basePost.push(
        await load("baseline POST", {
          url: `${baselineUrl}/api/gen/generate`,
          headers: { "content-type": "application/json" },
          ...post,
        }),
      );
      runs.creates.push(
        await load("server creates", {
          url: `${url}/api/gen/generate`,
          headers: { ...auth, "content-type": "application/json" },
          ...post,
        }),
      );
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
  const verdict = (value, target) =>
    `${(value * 100).toFixed(0)}% (target >= ${target * 100}%: ${value >= target ? "met" : "MISSED"})`;
  console.log(
    `medians of ${ROUNDS} rounds, ${DURATION_S} s each, ${CONNECTIONS} connections, ${cpus().length} CPUs`,
  );
  console.log(textTable(table));
  console.log("");
  console.log(`status reads vs baseline GET:  ${verdict(status.ratio, 0.5)}`);
  console.log(`creates vs baseline POST:      ${verdict(creates.ratio, 0.25)}`);
  if (seeded) {
    console.log(`status p99 with ${SEEDED_TASKS} tasks: ${statusSeeded.p99} ms (${status.p99} ms with 200)`);
    for (const line of seeded.lines) console.log(line);
  }
  for (const row of results.filter((r) => r.non2xx > 0 || r.errors > 0)) {
    console.log(`warning: ${row.name}: ${row.non2xx} non-2xx, ${row.errors} errors`);
  }
  mkdirSync(join(here, "../results"), { recursive: true });
  writeFileSync(
    join(here, "../results/server.json"),
    `${JSON.stringify({ date: new Date().toISOString(), results, halfLoad: seeded?.halfLoad }, null, 2)}\n`,
  );
}

await main();
