// `pnpm bench` (scale-out part), on one throwaway PostgreSQL cluster in one run:
//
// 1. API processes: status reads/s and creates/s with 1 and 2 `--role api`
//    processes on PostgreSQL, and the same load on SQLite (one process, role
//    all), as ratios. No worker runs beside the PostgreSQL API processes while
//    they are measured: the figure is what API processes serve, and on two cores a
//    worker would take its CPU from them. (SQLite's one process runs its worker
//    too, as it always does.)
// 2. Workers: tasks/s from queued to completed with 1, 2 and 4 `--role worker`
//    processes, against graphile-worker runners (as many, same concurrency)
//    draining as many no-op jobs on the same cluster. The queue is filled while
//    the workers are held (SIGSTOP), then all are let go at once; the figure is
//    the drain. Targets: genvideo at least graphile-worker's jobs/s with videos
//    in memory, and at least 60% of it with videos on disk.
//    genvideo drains twice, its workers' videos on disk (the temp folder) and
//    in memory (a tmpfs): a task stores a file, a no-op job does not, and on
//    some file systems creating that file costs more than the queue around it
//    (see MEMORY_ROOT).
// 3. The API against its ceiling, bare Hono + pg on the same database, and
//    creates with one and two API processes on one account and on many (see
//    ceiling.mjs).
//
// `--pinned`: part 3 only, its two servers pinned to CPU 0 and the load generator
// (wrk) and PostgreSQL to CPU 1 (`taskset`), so that neither takes the servers'
// core: the ratio then compares what each server does per request, which
// unpinned rounds, all sharing two cores, move by tens of percent. Needs 2 CPUs,
// taskset and wrk.
//
// `--smoke`: every part once, tiny (one round of half a second, 100 tasks, one
// worker process, no warm-ups), in a few seconds: that the benchmark still runs
// end to end (CI runs it so). No figure is judged; it fails only when a part
// fails (a request or a drain that errs).
//
// Rendering is not what is measured: the fixture renderer (a fixed tiny MP4) and
// prompts with `[[delay:0s]]` (no service time), so a task is due the moment a
// worker has its video. Figures depend on the machine; a missed target is
// reported, never failed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresCluster } from "@genvideo/server/testing/postgres";
import { makeWorkerUtils } from "graphile-worker";
import pg from "pg";
import { auth, createBody, seedStatusTargets, serverCli } from "../server/processes.mjs";
import { checkPinning } from "../server/wrk-load.mjs";
import { sized, smoke, verdict } from "../smoke.mjs";
import { textTable } from "../text-table.mjs";
import { apiAgainstCeiling, ceilingLines } from "./ceiling.mjs";
import {
  cpuSecondsOf,
  cycling,
  hold,
  loadAcross,
  release,
  secondsUntil,
  startGenvideo,
  startGraphileRunner,
} from "./cluster-processes.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const setting = (name, full, small) => process.env[name] ?? sized(full, small);
const DURATION_S = Number(setting("BENCH_DURATION", 4, 0.5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TASKS = Number(setting("BENCH_TASKS", 2000, 100));
/** Tasks created for status reads to cycle through. */
const READ_TARGETS = sized(200, 20);
const CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 10);
const WORKER_COUNTS = String(setting("BENCH_WORKER_COUNTS", "1,2,4", "1"))
  .split(",")
  .map(Number);
const ROUNDS = Number(setting("BENCH_ROUNDS", 3, 1));
/**
 * Seconds of load before each measured one, so connections and prepared statements exist and
 * the code the load runs is compiled. After one second both servers still ran their first
 * round slow: in three pinned runs, genvideo's first round of status reads ran at 36% to 57% of
 * its later rounds, the ceiling's at 52% to 88%, and that round's ratio counted in the median.
 */
const WARMUP_S = sized(3, 0);
const pinned = process.argv.includes("--pinned");
/** `api`, `workers`, `ceiling` or all three (default; `ceiling` pinned): run part of the benchmark while working on it. */
const PARTS = (process.env.BENCH_PARTS ?? (pinned ? "ceiling" : "api,workers,ceiling")).split(",");
/** Share of graphile-worker's rate a drain should reach, by where its videos are. */
const TARGETS = { memory: 1, disk: 0.6 };
/**
 * A tmpfs for the second drain, where a video file costs what the queue around
 * it costs to the kernel and no more. On a file system whose file creation is
 * slow the disk drain measures the disk too: ext4 without a journal, for one,
 * scans past every inode deleted in the last minutes before it allocates one,
 * so after a test run or an earlier drain has deleted thousands of files each
 * new video can cost a millisecond of kernel CPU (the disk drain's CPU per task
 * shows it).
 */
const MEMORY_ROOT = ["/dev/shm"].find((folder) => existsSync(folder));
/** A drain's rate as a share of graphile-worker's, and whether it meets the target. */
const percentOf = (drain, graphile) =>
  `${((drain.tasksPerSecond / graphile.jobsPerSecond) * 100).toFixed(0)}%`;
const met = (drain, graphile, where) => drain.tasksPerSecond / graphile.jobsPerSecond >= TARGETS[where];
const post = (headers = {}) => ({
  method: "POST",
  headers: { ...auth, "content-type": "application/json", ...headers },
});

/**
 * A new database on the cluster whose commits return before their WAL is flushed,
 * as SQLite's do (WAL, synchronous=NORMAL): the figures compare the services, not
 * this machine's disk. Crash-consistent all the same.
 */
async function benchDatabase(cluster) {
  const url = await cluster.createDatabase();
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(`alter database "${new URL(url).pathname.slice(1)}" set synchronous_commit = off`);
  } finally {
    await client.end();
  }
  return url;
}

/**
 * Counts rows while workers drain a queue, through a small pool: a connection
 * that fails is replaced and the count read again at the next poll.
 */
function countingPool(databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on("error", () => undefined);
  let sent = 0;
  const count = async (query) => {
    sent++;
    return Number((await pool.query(query)).rows[0].count);
  };
  return {
    count,
    /**
     * Transactions the database has counted so far (each autocommit statement is one), and how
     * many this pool sent: the difference between two readings is what the others sent. A
     * session's counts reach `pg_stat_database` when it goes idle (within a second) or ends.
     */
    transactions: async () => ({
      total: await count(
        "select xact_commit + xact_rollback as count from pg_stat_database where datname = current_database()",
      ),
      ours: sent,
    }),
    end: () => pool.end().catch(() => undefined),
  };
}

/** Transactions per task the others sent between two `transactions()` readings. */
const perTask = (before, after) =>
  Number((after.total - before.total - (after.ours - before.ours)) / TASKS).toFixed(2);
/** Long enough for idle sessions' transaction counts to reach `pg_stat_database` (a smoke run judges none). */
const STATS_SETTLE_MS = sized(1_500, 0);
const settleStats = () => new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));

/** Status reads then creates, `CONNECTIONS` in all spread over `urls`, each after a 1 s warm-up. */
async function measureApi(urls, statusPaths) {
  const reads = { connections: CONNECTIONS, requests: cycling(statusPaths, auth) };
  if (WARMUP_S > 0) await loadAcross(urls, { ...reads, duration: WARMUP_S });
  const status = await loadAcross(urls, { ...reads, duration: DURATION_S });
  const creates = { connections: CONNECTIONS, ...post(), body: createBody, path: "/api/gen/generate" };
  if (WARMUP_S > 0) await loadAcross(urls, { ...creates, duration: WARMUP_S });
  const created = await loadAcross(urls, { ...creates, duration: DURATION_S });
  const row = { status: status.requestsPerSecond, creates: created.requestsPerSecond };
  if (status.failures + created.failures > 0) row.failures = status.failures + created.failures;
  console.error(`  ${urls.length} process(es): ${JSON.stringify(row)}`);
  return row;
}

/** Credits for any load, then 200 tasks to read, finished by `finish` (a worker). */
async function seed(server) {
  const ids = await seedStatusTargets({
    url: server.url,
    serverCli,
    env: server.environment,
    auth,
    body: createBody,
    count: READ_TARGETS,
  });
  const finished = async () => {
    let open = 0;
    for (const id of ids) {
      const response = await fetch(`${server.url}/api/gen/status/${id}`, { headers: auth });
      const { status } = await response.json();
      if (status === "queued" || status === "processing") open++;
    }
    return ids.length - open;
  };
  await secondsUntil(finished, ids.length, { pollMs: 200 });
  return ids.map((id) => `/api/gen/status/${id}`);
}

async function apiScaling(cluster) {
  console.error("API processes: SQLite (role all)");
  const sqlite = await startGenvideo({});
  const sqliteRow = await measureApi([sqlite.url], await seed(sqlite)).finally(() => sqlite.stop());

  console.error("API processes: PostgreSQL (role api)");
  const databaseUrl = await benchDatabase(cluster);
  const first = await startGenvideo({ databaseUrl, role: "api" });
  const servers = [first];
  try {
    // A worker finishes the seeded tasks, so reads see what SQLite's reads see, then leaves.
    const worker = await startGenvideo({ databaseUrl, role: "worker" });
    const statusPaths = await seed(first).finally(() => worker.stop());
    const one = await measureApi([first.url], statusPaths);
    servers.push(await startGenvideo({ databaseUrl, role: "api" }));
    const two = await measureApi(
      servers.map((server) => server.url),
      statusPaths,
    );
    return { sqlite: sqliteRow, postgres1: one, postgres2: two };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/**
 * Fills the queue through an API process while `workers` are held, then times
 * their drain. The workers keep their videos under `videoRoot` (their data
 * directories).
 */
async function genvideoDrain(cluster, workerCount, videoRoot) {
  const databaseUrl = await benchDatabase(cluster);
  // No service time: a deadline of 10 real minutes never ends a task here.
  const env = { GENVIDEO_TIME_SCALE: "1", GENVIDEO_WORKERS: String(CONCURRENCY) };
  const api = await startGenvideo({ databaseUrl, role: "api", env });
  // e.g. `--cpu-prof --cpu-prof-dir=/tmp/profiles`: where a worker's time goes during the drain.
  const workerEnv = process.env.BENCH_WORKER_NODE_OPTIONS
    ? { ...env, NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS }
    : env;
  const workers = [];
  const counter = countingPool(databaseUrl);
  try {
    execFileSync(process.execPath, [serverCli, "accounts", "credit", "default", "100000000"], {
      env: { ...process.env, ...api.environment },
      stdio: "ignore",
    });
    workers.push(
      ...(await Promise.all(
        Array.from({ length: workerCount }, () =>
          startGenvideo({ databaseUrl, role: "worker", env: workerEnv, dataRoot: videoRoot }),
        ),
      )),
    );
    hold(workers);
    const body = JSON.stringify({ prompt: "a lighthouse at dusk [[delay:0s]]" });
    const created = await loadAcross([api.url], {
      connections: CONNECTIONS,
      amount: TASKS,
      ...post(),
      body,
      path: "/api/gen/generate",
    });
    if (created.failures > 0) throw new Error(`${created.failures} of ${TASKS} creates failed`);
    // The API's work is done: its transactions are counted before the drain, not in it.
    await api.stop();
    return await timeDrain(workers, counter, () =>
      counter.count("select count(*) from tasks where state = 'completed'"),
    );
  } finally {
    release(workers);
    await counter.end();
    await Promise.all([api, ...workers].map((server) => server.stop()));
  }
}

/**
 * Lets the held `processes` go and times their drain until `done()` counts every task; then stops
 * them, so their sessions have counted every transaction they sent. The rate, and the processes'
 * CPU and the database's transactions per task.
 */
async function timeDrain(processes, counter, done) {
  await settleStats();
  const transactionsBefore = await counter.transactions();
  const cpuBefore = workersCpuSeconds(processes);
  release(processes);
  const seconds = await secondsUntil(done, TASKS);
  const cpuSeconds = workersCpuSeconds(processes) - cpuBefore;
  await Promise.all(processes.map((started) => started.stop()));
  return {
    tasksPerSecond: Math.round(TASKS / seconds),
    cpuMsPerTask: msPerTask(cpuSeconds),
    transactionsPerTask: perTask(transactionsBefore, await counter.transactions()),
  };
}

/** CPU seconds as milliseconds per task; undefined where /proc is missing. */
const msPerTask = (cpuSeconds) =>
  Number.isNaN(cpuSeconds) ? undefined : Number(((cpuSeconds * 1000) / TASKS).toFixed(2));

/** CPU seconds the worker processes used so far, summed (NaN where /proc is missing). */
function workersCpuSeconds(workers) {
  return workers.reduce((sum, worker) => sum + (cpuSecondsOf(worker.pid) ?? Number.NaN), 0);
}

/** The same for graphile-worker: as many no-op jobs, as many runners, the same concurrency. */
async function graphileDrain(cluster, runnerCount) {
  const databaseUrl = await benchDatabase(cluster);
  const counter = countingPool(databaseUrl);
  const utils = await makeWorkerUtils({ connectionString: databaseUrl });
  const runners = [];
  try {
    await utils.migrate();
    runners.push(
      ...(await Promise.all(
        Array.from({ length: runnerCount }, () => startGraphileRunner(databaseUrl, CONCURRENCY)),
      )),
    );
    hold(runners);
    for (let added = 0; added < TASKS; added += 500) {
      const size = Math.min(500, TASKS - added);
      await utils.addJobs(
        Array.from({ length: size }, (_, index) => ({ identifier: "noop", payload: { index } })),
      );
    }
    const { tasksPerSecond, ...costs } = await timeDrain(
      runners,
      counter,
      async () => TASKS - (await counter.count("select count(*) from graphile_worker._private_jobs")),
    );
    return { jobsPerSecond: tasksPerSecond, ...costs };
  } finally {
    release(runners);
    await Promise.all(runners.map((runner) => runner.stop()));
    await utils.release();
    await counter.end();
  }
}

async function main() {
  const loadBefore = loadavg();
  console.error(
    `scale-out bench: ${cpus().length} CPUs, load ${loadBefore.map((value) => value.toFixed(2)).join(" ")}; ` +
      `API loads ${DURATION_S} s at ${CONNECTIONS} connections; ${TASKS} tasks per drain, concurrency ${CONCURRENCY} per worker process`,
  );
  if (pinned) {
    checkPinning();
    // This process and every thread of it on CPU 1: the cluster started next, and each backend it
    // forks for a connection, inherit it. The servers are started on CPU 0.
    execFileSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
  }
  const cluster = await startPostgresCluster({ durable: true });
  try {
    const api = PARTS.includes("api") ? await apiScaling(cluster) : undefined;
    const drains = [];
    for (const count of PARTS.includes("workers") ? WORKER_COUNTS : []) {
      console.error(`workers: ${count} process(es)`);
      const onDisk = await genvideoDrain(cluster, count, tmpdir());
      const inMemory = MEMORY_ROOT ? await genvideoDrain(cluster, count, MEMORY_ROOT) : undefined;
      const graphile = await graphileDrain(cluster, count);
      console.error(
        `  genvideo ${onDisk.tasksPerSecond} tasks/s with videos on disk (${onDisk.cpuMsPerTask ?? "?"} ms of worker CPU per task)` +
          (inMemory ? `, ${inMemory.tasksPerSecond} in memory (${inMemory.cpuMsPerTask ?? "?"} ms)` : "") +
          `; graphile-worker ${graphile.jobsPerSecond} jobs/s (${graphile.cpuMsPerTask ?? "?"} ms); ` +
          `transactions per task: disk ${onDisk.transactionsPerTask}, memory ${inMemory?.transactionsPerTask ?? "?"}, ` +
          `graphile-worker ${graphile.transactionsPerTask}`,
      );
      drains.push({ processes: count, graphile, onDisk, inMemory });
    }
    const ceiling = PARTS.includes("ceiling")
      ? await apiAgainstCeiling({
          databaseUrl: await benchDatabase(cluster),
          rounds: ROUNDS,
          duration: DURATION_S,
          warmup: WARMUP_S,
          readTargets: READ_TARGETS,
          connections: CONNECTIONS,
          pinned,
        })
      : undefined;
    report(api, drains, loadBefore, ceiling);
  } finally {
    await cluster.stop();
  }
}

function report(api, drains, loadBefore, ceiling) {
  const ratio = (value, base) => `${(value / base).toFixed(2)}x`;
  const apiRows = api
    ? [
        ["SQLite, 1 process (role all)", api.sqlite],
        ["PostgreSQL, 1 API process", api.postgres1],
        ["PostgreSQL, 2 API processes", api.postgres2],
      ]
    : [];
  if (api) {
    console.log(
      `API processes: ${DURATION_S} s per load, ${CONNECTIONS} connections in all, ${cpus().length} CPUs shared by the ` +
        "load generator, the servers and PostgreSQL",
    );
    console.log(
      textTable([
        ["setup", "status reads/s", "vs SQLite", "creates/s", "vs SQLite"],
        ...apiRows.map(([name, row]) => [
          name,
          String(row.status),
          ratio(row.status, api.sqlite.status),
          String(row.creates),
          ratio(row.creates, api.sqlite.creates),
        ]),
      ]),
    );
    console.log(
      `2 vs 1 API process on PostgreSQL: status reads ${ratio(api.postgres2.status, api.postgres1.status)}, ` +
        `creates ${ratio(api.postgres2.creates, api.postgres1.creates)}`,
    );
    console.log("");
  }
  if (drains.length > 0) {
    console.log(
      `Workers: ${TASKS} queued tasks (jobs) drained, concurrency ${CONCURRENCY} per process, fixture renderer, no callbacks; ` +
        "CPU: the worker processes' per task; xacts: transactions the database counted per task (each autocommit statement is one); " +
        `videos on disk (${tmpdir()}) and in memory (${MEMORY_ROOT ?? "no tmpfs found"}); targets: genvideo >= ${TARGETS.memory * 100}% of graphile-worker in memory, >= ${TARGETS.disk * 100}% on disk`,
    );
    const share = (drain, graphile, where) =>
      drain ? `${percentOf(drain, graphile)} ${verdict(met(drain, graphile, where))}` : "n/a";
    console.log(
      textTable([
        [
          "worker processes",
          "graphile-worker jobs/s",
          "CPU ms/job",
          "xacts/job",
          "genvideo tasks/s, memory",
          "vs graphile",
          "CPU ms/task",
          "xacts/task",
          "genvideo tasks/s, disk",
          "vs graphile",
          "CPU ms/task",
          "xacts/task",
        ],
        ...drains.map((row) => [
          String(row.processes),
          String(row.graphile.jobsPerSecond),
          String(row.graphile.cpuMsPerTask ?? "n/a"),
          String(row.graphile.transactionsPerTask),
          row.inMemory ? String(row.inMemory.tasksPerSecond) : "n/a",
          share(row.inMemory, row.graphile, "memory"),
          String(row.inMemory?.cpuMsPerTask ?? "n/a"),
          String(row.inMemory?.transactionsPerTask ?? "n/a"),
          String(row.onDisk.tasksPerSecond),
          share(row.onDisk, row.graphile, "disk"),
          String(row.onDisk.cpuMsPerTask ?? "n/a"),
          String(row.onDisk.transactionsPerTask),
        ]),
      ]),
    );
  }
  if (ceiling) {
    console.log("");
    for (const line of ceilingLines(ceiling, { duration: DURATION_S, connections: CONNECTIONS, pinned }))
      console.log(line);
  }
  const loadAfter = loadavg();
  console.log(
    `load average before ${loadBefore[0].toFixed(2)}, after ${loadAfter[0].toFixed(2)} (1 min); ` +
      `${Math.round(performance.now() / 1000)} s in all`,
  );
  // Reported, never failed: a benchmark's figure depends on the machine it runs on.
  for (const row of drains) {
    for (const [where, drain] of [
      ["disk", row.onDisk],
      ["memory", row.inMemory],
    ]) {
      if (drain && !smoke && !met(drain, row.graphile, where)) {
        console.log(
          `MISSED: ${row.processes} worker process(es), videos on ${where}, at ` +
            `${percentOf(drain, row.graphile)} of graphile-worker`,
        );
      }
    }
  }
  for (const [name, row] of apiRows.filter(([, row]) => row.failures)) {
    console.log(`warning: ${name}: ${row.failures} failed requests`);
  }
  if (ceiling?.failures) console.log(`warning: against the ceiling: ${ceiling.failures} failed requests`);
  if (smoke) {
    // A smoke run proves the benchmark runs, not what the machine does: nothing is kept.
    const failed = apiRows.some(([, row]) => row.failures) || Boolean(ceiling?.failures);
    process.exitCode = failed ? 1 : 0;
    return;
  }
  mkdirSync(join(here, "../results"), { recursive: true });
  writeFileSync(
    join(here, `../results/${pinned ? "postgres-pinned" : "postgres"}.json`),
    `${JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, loadBefore, loadAfter, api, drains, ceiling }, null, 2)}\n`,
  );
}

await main();
