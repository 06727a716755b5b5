// `pnpm bench` (server part): the reference server's status reads and creates
// per second against a bare Hono + @hono/node-server JSON route, in one run on
// one machine, then status latency with 100 000 tasks in the database.
// Targets: status reads >= 50% of the baseline, creates >= 25%.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { startProcess } from "./processes.mjs";
import { seedTasks } from "./seed-tasks.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const serverCli = join(here, "../../apps/server/dist/cli.js");
const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SEEDED_TASKS = Number(process.env.BENCH_SEEDED_TASKS ?? 100_000);
const API_KEY = "bench_key_0123456789abcdefghijklmnop";
const auth = { authorization: `Bearer ${API_KEY}` };
const createBody = JSON.stringify({ prompt: "a lighthouse at dusk, waves rolling in" });

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

function serverEnvironment(dataDir) {
  return {
    PORT: "0",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_RATE_LIMITS: "off",
    // A fixed tiny MP4: the worker's renders would otherwise take the CPU the API is measured on.
    GENVIDEO_RENDERER: "fixture",
    GENVIDEO_BOOTSTRAP_API_KEY: API_KEY,
    GENVIDEO_LOG_LEVEL: "info",
  };
}

async function json(url, init) {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-bench-"));
  const results = [];
  try {
    console.error(
      `genvideo server bench: ${DURATION_S} s per run, ${CONNECTIONS} connections, ${cpus().length} CPUs`,
    );

    const baseline = startProcess([join(here, "baseline-server.mjs")], { PORT: "0" });
    const baselineUrl = await baseline.url;
    results.push(
      await load("baseline GET (bare Hono JSON)", {
        url: `${baselineUrl}/api/gen/status/6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c`,
      }),
    );
    results.push(
      await load("baseline POST (bare Hono JSON)", {
        url: `${baselineUrl}/api/gen/generate`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: createBody,
      }),
    );
    await baseline.stop();

    let server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
    let url = await server.url;
    const { account_id: accountId } = await json(`${url}/api/gen/account`, { headers: auth });
    const taskIds = [];
    for (let index = 0; index < 200; index++) {
      const created = await json(`${url}/api/gen/generate`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: createBody,
      });
      taskIds.push(created.task_id);
    }
    results.push(
      await load("server status reads", {
        url,
        requests: cyclingRequests(
          taskIds.map((id) => `/api/gen/status/${id}`),
          auth,
        ),
      }),
    );
    await server.stop();

    // Enough credits for every create the next run can make, the way an operator adds them.
    const dbPath = join(dataDir, "genvideo.db");
    execFileSync(process.execPath, [serverCli, "accounts", "credit", "default", "100000000"], {
      env: { ...process.env, ...serverEnvironment(dataDir) },
      stdio: "ignore",
    });
    server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
    url = await server.url;
    results.push(
      await load("server creates", {
        url: `${url}/api/gen/generate`,
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: createBody,
      }),
    );
    await server.stop();

    console.error(`  seeding ${SEEDED_TASKS} tasks…`);
    const seeded = seedTasks(dbPath, accountId, SEEDED_TASKS);
    server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
    url = await server.url;
    const sample = Array.from(
      { length: 5000 },
      (_, index) => `/api/gen/status/${seeded[(index * 7919) % seeded.length]}`,
    );
    results.push(
      await load(`server status reads, ${SEEDED_TASKS} tasks in the database`, {
        url,
        requests: cyclingRequests(sample, auth),
      }),
    );
    await server.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  report(results);
}

function report(results) {
  const [baseGet, basePost, status, creates, statusSeeded] = results;
  const ratio = (a, b) => a.requestsPerSecond / b.requestsPerSecond;
  const table = [
    ["scenario", "req/s", "p50 ms", "p99 ms", "vs baseline"],
    ...results.map((row) => [
      row.name,
      String(row.requestsPerSecond),
      String(row.p50),
      String(row.p99),
      row === status || row === statusSeeded
        ? `${(ratio(row, baseGet) * 100).toFixed(0)}%`
        : row === creates
          ? `${(ratio(row, basePost) * 100).toFixed(0)}%`
          : "",
    ]),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  const lines = table.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  "),
  );
  lines.splice(1, 0, widths.map((width) => "-".repeat(width)).join("  "));
  const statusRatio = ratio(status, baseGet);
  const createRatio = ratio(creates, basePost);
  const verdict = (value, target) =>
    `${(value * 100).toFixed(0)}% (target >= ${target * 100}%: ${value >= target ? "met" : "MISSED"})`;
  console.log(lines.join("\n"));
  console.log("");
  console.log(`status reads vs baseline GET:  ${verdict(statusRatio, 0.5)}`);
  console.log(`creates vs baseline POST:      ${verdict(createRatio, 0.25)}`);
  console.log(
    `status p99 with ${SEEDED_TASKS} tasks: ${statusSeeded.p99} ms (vs ${status.p99} ms with a small database)`,
  );
  const errors = results.filter((row) => row.non2xx > 0 || row.errors > 0);
  for (const row of errors) console.log(`warning: ${row.name}: ${row.non2xx} non-2xx, ${row.errors} errors`);
  mkdirSync(join(here, "../results"), { recursive: true });
  writeFileSync(
    join(here, "../results/server.json"),
    `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
  );
}

await main();
