// `pnpm bench` (server part): the reference server's status reads and creates
// per second against a bare Hono + @hono/node-server JSON route, on the same
// machine in the same run, then status reads with 100 000 tasks stored.
// Targets: status reads >= 50% of the baseline, creates >= 25%.
//
// Shared CI machines drift, so each comparison runs in rounds, baseline then
// server back to back, and the ratio reported is the median of the rounds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { textTable } from "../text-table.mjs";
import { fixedRateLoad } from "./fixed-rate.mjs";
import {
  auth,
  createBody,
  seedStatusTargets,
  serverCli,
  serverEnvironment,
  startProcess,
} from "./processes.mjs";
import { seedTasks } from "./seed-tasks.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SEEDED_TASKS = Number(process.env.BENCH_SEEDED_TASKS ?? 100_000);
const WARM_UP_S = Number(process.env.BENCH_WARM_UP ?? 2);
const FIXED_RATE_S = Number(process.env.BENCH_FIXED_RATE_SECONDS ?? 10);

function load(name, options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options }, (error, result) => {
      if (error) return reject(error);
      const row = {
        name,
        requestsPerSecond: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      };
      console.error(
        `  ${name}: ${row.requestsPerSecond} req/s, p99 ${row.p99} ms${row.non2xx ? `, ${row.non2xx} non-2xx` : ""}`,
      );
      resolve(row);
    });
  });
}

/**
 * Two seconds of the same load, not recorded, before a scenario's first round:
 * the rounds then measure servers whose code is compiled and whose caches hold
 * what the load reads (a server just restarted on 100 000 tasks has neither).
 */
function warmUp(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: WARM_UP_S, ...options }, (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

/** Cycles through `paths`, so reads hit many rows rather than one cached page. */
function cyclingRequests(paths, headers) {
  let next = 0;
  return [
    {
      method: "GET",
      headers,
      setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }),
    },
  ];
}

async function json(url, init) {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Waits until the worker has finished every task: a busy worker would slow whichever run comes next. */
async function settled(dbPath) {
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

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-bench-"));
  const dbPath = join(dataDir, "genvideo.db");
  const baseline = startProcess([join(here, "baseline-server.mjs")], { PORT: "0" });
  let server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
  try {
    console.error(
      `genvideo server bench: ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections, ${cpus().length} CPUs`,
    );
    const baselineUrl = await baseline.url;
    let url = await server.url;
    const taskIds = await seedStatusTargets({
      url,
      serverCli,
      env: serverEnvironment(dataDir),
      auth,
      body: createBody,
    });
    const { account_id: accountId } = await json(`${url}/api/gen/account`, { headers: auth });
    await settled(dbPath);

    const runs = { baseGet: [], status: [], basePost: [], creates: [], baseGetSeeded: [], statusSeeded: [] };
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

    console.error(`  seeding ${SEEDED_TASKS} tasks…`);
    const seeded = seedTasks(dbPath, accountId, SEEDED_TASKS);
    server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
    url = await server.url;
    const sample = Array.from(
      { length: 5000 },
      (_, index) => `/api/gen/status/${seeded[(index * 7919) % seeded.length]}`,
    );
    await warmUp({ url, requests: cyclingRequests(sample, auth) });
    for (let round = 0; round < ROUNDS; round++) {
      runs.baseGetSeeded.push(await load("baseline GET", { url: `${baselineUrl}${statusPaths[0]}` }));
      runs.statusSeeded.push(
        await load(`server status reads, ${SEEDED_TASKS} tasks`, {
          url,
          requests: cyclingRequests(sample, auth),
        }),
      );
    }
    // Latency where it is not queueing: an open loop at half the measured maximum.
    const seededMaximum = median(runs.statusSeeded.map((row) => row.requestsPerSecond));
    const halfLoad = await fixedRateLoad({
      url,
      paths: sample,
      headers: auth,
      rate: Math.max(1, Math.round(seededMaximum / 2)),
      seconds: FIXED_RATE_S,
    });
    console.error(`  fixed rate at half of ${seededMaximum} req/s: ${JSON.stringify(halfLoad)}`);
    report(
      [
        summarise("baseline GET (bare Hono JSON)", runs.baseGet),
        summarise("baseline POST (bare Hono JSON)", runs.basePost),
        summarise("server GET /api/gen/status/:id", runs.status, runs.baseGet),
        summarise("server POST /api/gen/generate", runs.creates, runs.basePost),
        summarise(`server status, ${SEEDED_TASKS} tasks stored`, runs.statusSeeded, runs.baseGetSeeded),
      ],
      halfLoad,
    );
  } finally {
    await Promise.all([server.stop(), baseline.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(results, halfLoad) {
  const [, , status, creates, statusSeeded] = results;
  const table = [
    ["scenario", "req/s", "p50 ms", "p99 ms", "vs baseline"],
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
  console.log(`status p99 with ${SEEDED_TASKS} tasks: ${statusSeeded.p99} ms (${status.p99} ms with 200)`);
  console.log(
    `status p99 with ${SEEDED_TASKS} tasks at half the maximum (${halfLoad.achievedRate} req/s, open loop, ` +
      `${FIXED_RATE_S} s): ${halfLoad.p99} ms (p50 ${halfLoad.p50}, p99.9 ${halfLoad.p999}, max ${halfLoad.max}; ` +
      `target < 5 ms: ${halfLoad.p99 < 5 ? "met" : "MISSED"})`,
  );
  for (const row of results.filter((r) => r.non2xx > 0 || r.errors > 0)) {
    console.log(`warning: ${row.name}: ${row.non2xx} non-2xx, ${row.errors} errors`);
  }
  mkdirSync(join(here, "../results"), { recursive: true });
  writeFileSync(
    join(here, "../results/server.json"),
    `${JSON.stringify({ date: new Date().toISOString(), results, halfLoad }, null, 2)}\n`,
  );
}

await main();
