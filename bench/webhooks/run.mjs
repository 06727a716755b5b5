// Webhook deliveries per second through the built reference server (engine
// dispatcher, SQLite outbox, undici sender) to a fast loopback receiver; then
// the same with 100 dead receivers in the mix (half never answer, half refuse
// the connection), their events due first, the worst order for head-of-line
// blocking. Run `node bench/webhooks/run.mjs` after `pnpm build`, or
// `node bench/run-all.mjs webhooks`, which builds first. `--smoke`: one round of
// 100 events beside 10 dead receivers, that it works.
//
// The outbox is seeded straight into SQLite with every event due, and the
// server started on it: what is timed is the dispatcher draining the outbox,
// not task creation or rendering.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createTcpServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { listenOnLoopback, serveOnLoopback } from "@genvideo/server/testing";
import { startProcess } from "../server/processes.mjs";
import { seedTasks } from "../server/seed-tasks.mjs";
import { sized } from "../smoke.mjs";
import { textTable } from "../text-table.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const serverCli = join(here, "../../apps/server/dist/cli.js");
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? sized(3000, 100));
const DEAD = Number(process.env.BENCH_DEAD_RECEIVERS ?? sized(100, 10));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
const TIMEOUT_MS = 120_000;
const API_KEY = "bench_key_0123456789abcdefghijklmnop";
const SECRET = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;

function serverEnvironment(dataDir) {
  return {
    PORT: "0",
    HOST: "127.0.0.1",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_RATE_LIMITS: "off",
    GENVIDEO_RENDERER: "fixture",
    GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
    GENVIDEO_BOOTSTRAP_API_KEY: API_KEY,
    GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET: SECRET,
    GENVIDEO_LOG_LEVEL: "info",
  };
}

/** A receiver answering 204 at once; records when each event first arrived. */
async function fastReceiver() {
  const arrivals = new Map();
  const { origin, close } = await serveOnLoopback((request, response) => {
    request.resume();
    request.on("end", () => {
      const id = request.headers["webhook-id"];
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      response.writeHead(204).end();
    });
  });
  return { url: `${origin}/hook`, arrivals, close };
}

/** Dead receivers: half accept the connection and never answer, half refuse it (a port just closed). */
async function deadReceivers(count) {
  const silent = [];
  const sockets = new Set();
  const urls = [];
  for (let index = 0; index < count; index++) {
    const server = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    });
    const url = `http://127.0.0.1:${await listenOnLoopback(server)}/hook`;
    if (index % 2 === 0) silent.push(server);
    else await new Promise((resolve) => server.close(resolve));
    urls.push(url);
  }
  return {
    urls,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(silent.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

/** Seeds `urls.length` pending events, all due, in the given order (first is claimed first). */
function seedEvents(databasePath, accountId, urls) {
  const taskIds = seedTasks(databasePath, accountId, urls.length);
  const database = new DatabaseSync(databasePath);
  database.exec("PRAGMA busy_timeout = 10000");
  const insert = database.prepare(`insert into webhook_events
      (id, task_id, account_id, url, payload, state, attempt_count, next_attempt_at, created_at, lease_owner, lease_expires_at)
    values (?, ?, ?, ?, ?, 'pending', 0, ?, ?, null, null)`);
  const ids = [];
  database.exec("begin");
  for (const [index, url] of urls.entries()) {
    const id = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
    const payload = JSON.stringify({
      success: false,
      message: "UNSAFE_CONTENT",
      task_id: taskIds[index],
      video_url: null,
    });
    // Due since long ago, oldest first: a 1 ms step keeps the claim order the seeding order.
    insert.run(id, taskIds[index], accountId, url, payload, 1_000 + index, 1_000 + index);
    ids.push(id);
  }
  database.exec("commit");
  database.close();
  return ids;
}

async function accountId(url) {
  const response = await fetch(`${url}/api/gen/account`, { headers: { authorization: `Bearer ${API_KEY}` } });
  if (!response.ok) throw new Error(`account: ${response.status}`);
  return (await response.json()).account_id;
}

async function waitFor(check, what) {
  const deadline = performance.now() + TIMEOUT_MS;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** One run: a fresh database with `dead` dead events due before `EVENTS` fast ones. */
async function run(dead) {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-bench-webhooks-"));
  const databasePath = join(dataDir, "genvideo.db");
  const receiver = await fastReceiver();
  const deadOnes = await deadReceivers(dead);
  let server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
  try {
    const account = await accountId(await server.url);
    await server.stop();
    const fastIds = seedEvents(databasePath, account, [
      ...deadOnes.urls,
      ...Array.from({ length: EVENTS }, () => receiver.url),
    ]).slice(dead);

    const started = performance.now();
    server = startProcess([serverCli, "start"], serverEnvironment(dataDir));
    await server.url;
    await waitFor(() => receiver.arrivals.size >= EVENTS, `${EVENTS} deliveries`);
    const times = fastIds.map((id) => receiver.arrivals.get(id)).sort((a, b) => a - b);
    const first = times[0];
    const last = times.at(-1);
    // A delivery is recorded a moment after its answer arrives: wait for the records, then stop
    // (a server stopped before it records one delivers that event again after a restart).
    const database = new DatabaseSync(databasePath, { readOnly: true });
    const countDelivered = database.prepare(
      "select count(*) as count from webhook_events where url = ? and state = 'delivered'",
    );
    try {
      await waitFor(() => countDelivered.get(receiver.url).count >= EVENTS, `${EVENTS} deliveries recorded`);
    } finally {
      database.close();
      await server.stop();
    }
    return {
      dead,
      deliveriesPerSecond: Math.round(EVENTS / ((last - first) / 1000)),
      firstFastMs: Math.round(first - started),
      allFastMs: Math.round(last - started),
    };
  } finally {
    await server.stop();
    await receiver.close();
    await deadOnes.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  console.error(
    `webhook delivery bench: ${EVENTS} events to one fast receiver, ${ROUNDS} rounds, ${cpus().length} CPUs`,
  );
  const rows = [];
  for (const dead of [0, DEAD]) {
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) {
      const result = await run(dead);
      console.error(
        `  ${dead} dead: ${result.deliveriesPerSecond} deliveries/s, first after ${result.firstFastMs} ms, all after ${result.allFastMs} ms`,
      );
      runs.push(result);
    }
    rows.push({
      workload: dead === 0 ? "fast receiver alone" : `fast receiver + ${dead} dead (due first)`,
      deliveriesPerSecond: median(runs.map((r) => r.deliveriesPerSecond)),
      firstFastMs: median(runs.map((r) => r.firstFastMs)),
      allFastMs: median(runs.map((r) => r.allFastMs)),
    });
  }
  const table = [
    ["workload", "deliveries/s", "first fast (ms)", `all ${EVENTS} (ms)`],
    ...rows.map((row) => [
      row.workload,
      String(row.deliveriesPerSecond),
      String(row.firstFastMs),
      String(row.allFastMs),
    ]),
  ];
  console.log(`medians of ${ROUNDS} rounds; times from the server process start (Node start included)`);
  console.log(textTable(table));
  const [alone, mixed] = rows;
  console.log(
    `\nwith ${DEAD} dead receivers: ${((mixed.deliveriesPerSecond / alone.deliveriesPerSecond) * 100).toFixed(0)}% of the throughput alone`,
  );
  mkdirSync(join(here, "../results"), { recursive: true });
  writeFileSync(
    join(here, "../results/webhooks.json"),
    `${JSON.stringify({ date: new Date().toISOString(), events: EVENTS, dead: DEAD, results: rows }, null, 2)}\n`,
  );
}

await main();
