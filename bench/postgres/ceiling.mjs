// `pnpm bench` (scale-out part), the API against its PostgreSQL ceiling:
//
// 1. One `--role api` process against the bare Hono + pg app of
//    ceiling-server.mjs on the same database, in alternating rounds (ceiling,
//    then genvideo, back to back), status reads then creates: the ratio of
//    each round, median reported. Target: genvideo at least 80% of the
//    ceiling for both. Beside the rates, the CPU each process spent per
//    request (/proc), which a busy machine moves less.
// 2. Creates with one and with two API processes, all on one account and
//    spread over many accounts: a create holds its account's row lock for one
//    statement, so a second process adds creates even on one account.
import { createHash, randomUUID } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { cpuMicros } from "../server/process-cpu.mjs";
import { auth, createBody, seedStatusTargets, serverCli, startProcess } from "../server/processes.mjs";
import { wrkClosedLoop } from "../server/wrk-load.mjs";
import { verdict } from "../smoke.mjs";
import { cycling, loadAcross, startGenvideo } from "./cluster-processes.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const TARGET = 0.8;
const MANY_ACCOUNTS = 16;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const post = (headers) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: createBody,
  path: "/api/gen/generate",
});

/** Creates that cycle through `keys`, one account each. */
function createsAcross(keys) {
  let next = 0;
  return {
    path: "/api/gen/generate",
    requests: [
      {
        method: "POST",
        body: createBody,
        setupRequest: (request) => ({
          ...request,
          headers: {
            ...request.headers,
            "content-type": "application/json",
            authorization: `Bearer ${keys[next++ % keys.length]}`,
          },
        }),
      },
    ],
  };
}

/** `count` accounts with plenty of credits and a key each, written straight into the tables; the keys. */
async function manyAccounts(databaseUrl, count) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const keys = [];
    for (let index = 0; index < count; index++) {
      const accountId = randomUUID();
      const key = `bench_many_${index}_0123456789abcdefghij`;
      const now = Date.now();
      await client.query("insert into accounts (id, name, credits, created_at) values ($1, $2, $3, $4)", [
        accountId,
        `bench-${index}`,
        100_000_000,
        now,
      ]);
      await client.query(
        "insert into api_keys (id, account_id, hash, prefix, created_at, name) values ($1, $2, $3, $4, $5, $6)",
        [
          randomUUID(),
          accountId,
          createHash("sha256").update(key).digest("hex"),
          key.slice(0, 11),
          now,
          "bench",
        ],
      );
      keys.push(key);
    }
    return keys;
  } finally {
    await client.end();
  }
}

/**
 * A load of `workload` on `url` for `duration` seconds: autocannon in this process, or, `pinned`,
 * wrk on CPU 1 (the servers' core is 0). Requests/s, requests and failures.
 */
async function loadOn(url, { wrk, ...workload }, duration, pinned) {
  if (!pinned) return loadAcross([url], { ...workload, duration });
  const result = await wrkClosedLoop({
    url,
    ...wrk,
    seconds: duration,
    connections: workload.connections,
    cpu: 1,
  });
  return {
    requestsPerSecond: result.requestsPerSecond,
    requests: result.requests,
    failures: result.non2xx + result.failures,
  };
}

/**
 * Part 1 and 2 on a new database of `cluster`: `{ ceiling: {...}, scaling: {...} }`.
 * `rounds` alternations of `duration` seconds at `connections` connections, each
 * load after `warmup` seconds of the same (none when 0); reads cycle through
 * `readTargets` tasks. `pinned`: both servers on CPU 0 and wrk on CPU 1, beside
 * PostgreSQL, which the caller pinned there; part 2, about processes, is left out.
 */
export async function apiAgainstCeiling({
  databaseUrl,
  rounds,
  duration,
  warmup,
  readTargets,
  connections,
  pinned,
}) {
  const serverCpu = pinned ? 0 : undefined;
  const first = await startGenvideo({ databaseUrl, role: "api", cpu: serverCpu });
  const servers = [first];
  const ceiling = startProcess(
    [join(here, "ceiling-server.mjs")],
    { DATABASE_URL: databaseUrl, PORT: "0" },
    { cpu: serverCpu },
  );
  try {
    const ceilingUrl = await ceiling.url;
    // Queued tasks to read: both read the same rows, and no worker takes CPU from either.
    const ids = await seedStatusTargets({
      url: first.url,
      serverCli,
      env: first.environment,
      auth,
      body: createBody,
      count: readTargets,
    });
    const readPaths = ids.map((id) => `/api/gen/status/${id}`);
    const reads = {
      connections,
      requests: cycling(readPaths, auth),
      wrk: { paths: readPaths, headers: auth },
    };
    const { path: createPath, ...create } = post(auth);
    const creates = { connections, path: createPath, ...create, wrk: { paths: [createPath], ...create } };
    let failures = 0;
    const cpu = {};
    // Requests/s, and the CPU the one process behind `url` spent per request (`cpu[name]`, µs):
    // steadier than the rate on a machine where other work takes the cores.
    const measure = async (urls, options, name, pid) => {
      const before = pid === undefined ? undefined : cpuMicros(pid);
      const load =
        urls.length === 1
          ? await loadOn(urls[0], options, duration, pinned)
          : await loadAcross(urls, { ...options, duration });
      const spent = before === undefined ? undefined : cpuMicros(pid) - before;
      if (name !== undefined && spent !== undefined && load.requests > 0) {
        cpu[name] ??= [];
        cpu[name].push(spent / load.requests);
      }
      failures += load.failures;
      return load.requestsPerSecond;
    };
    for (const url of warmup > 0 ? [ceilingUrl, first.url] : []) {
      await loadOn(url, reads, warmup, pinned);
      await loadOn(url, creates, warmup, pinned);
    }
    const rows = [];
    for (let round = 0; round < rounds; round++) {
      const row = {
        ceilingStatus: await measure([ceilingUrl], reads, "ceilingStatus", ceiling.pid),
        status: await measure([first.url], reads, "status", first.pid),
        ceilingCreates: await measure([ceilingUrl], creates, "ceilingCreates", ceiling.pid),
        creates: await measure([first.url], creates, "creates", first.pid),
      };
      console.error(`  ceiling round ${round + 1}: ${JSON.stringify(row)}`);
      rows.push(row);
    }
    await ceiling.stop();
    const result = {
      rounds: rows,
      /** Median CPU µs per request of each measured process, by row key; empty without /proc. */
      cpuPerRequest: Object.fromEntries(Object.entries(cpu).map(([name, values]) => [name, median(values)])),
      statusRatio: median(rows.map((row) => row.status / row.ceilingStatus)),
      createRatio: median(rows.map((row) => row.creates / row.ceilingCreates)),
      // Non-2xx answers and errors of every load: figures measured over failures mean nothing.
      failures,
    };
    if (pinned) return result;

    const keys = await manyAccounts(databaseUrl, MANY_ACCOUNTS);
    const spread = { connections, ...createsAcross(keys) };
    const scaling = { one: {}, two: {} };
    for (const [name, urls] of [
      ["one", () => [first.url]],
      ["two", () => servers.map((server) => server.url)],
    ]) {
      if (name === "two") servers.push(await startGenvideo({ databaseUrl, role: "api" }));
      if (warmup > 0) await loadAcross(urls(), { ...creates, duration: warmup });
      scaling[name].oneAccount = await measure(urls(), creates);
      scaling[name].manyAccounts = await measure(urls(), spread);
      console.error(`  creates, ${name} API process(es): ${JSON.stringify(scaling[name])}`);
    }
    return { ...result, scaling, failures };
  } finally {
    await Promise.all([ceiling.stop(), ...servers.map((server) => server.stop())]);
  }
}

/** The report's lines for `apiAgainstCeiling`'s result. */
export function ceilingLines(result, { duration, connections, pinned }) {
  const percent = (value) => `${(value * 100).toFixed(0)}%`;
  const judged = (value) => `${percent(value)} (target >= ${percent(TARGET)}: ${verdict(value >= TARGET)})`;
  const pick = (key) => median(result.rounds.map((row) => row[key]));
  const cpu = (key) =>
    result.cpuPerRequest[key] === undefined ? "" : ` (${Math.round(result.cpuPerRequest[key])} µs CPU each)`;
  const lines = [
    `One API process against bare Hono + pg on the same database (bench/postgres/ceiling-server.mjs), ` +
      `${result.rounds.length} alternating rounds of ${duration} s at ${connections} connections` +
      `${pinned ? ", both pinned to CPU 0, wrk and PostgreSQL to CPU 1" : ""}, medians:`,
    `  status reads: ceiling ${pick("ceilingStatus")}/s${cpu("ceilingStatus")}, genvideo ${pick("status")}/s${cpu("status")}: ${judged(result.statusRatio)}`,
    `  creates:      ceiling ${pick("ceilingCreates")}/s${cpu("ceilingCreates")}, genvideo ${pick("creates")}/s${cpu("creates")}: ${judged(result.createRatio)}`,
  ];
  if (!result.scaling) return lines;
  const { one, two } = result.scaling;
  return [
    ...lines,
    `Creates/s with 1 and 2 API processes: one account ${one.oneAccount} and ${two.oneAccount} ` +
      `(${(two.oneAccount / one.oneAccount).toFixed(2)}x); ${MANY_ACCOUNTS} accounts ${one.manyAccounts} and ` +
      `${two.manyAccounts} (${(two.manyAccounts / one.manyAccounts).toFixed(2)}x)`,
  ];
}
