// A soak: the built server on SQLite under a mixed load for N minutes, sampled every interval
// into a CSV (RSS, heap, descriptors, database and video sizes, rows, p99 per request kind,
// errors, connection resets), then one line saying what grew (soak/growth.mjs). History retention and video
// retention are short, so both pass during the run: the sizes should level off, not climb.
//
//   node soak/run.mjs --minutes 20 [--interval 30] [--out soak.csv]
//   node soak/run.mjs --smoke           (a few seconds: that it runs and writes its CSV)
//   node soak/run.mjs --verdict soak.csv (the summary of a CSV written before)
//
// Load per second (flags): --creates 20, --reads 100, --downloads 5 (Range), --pages 1
// (dashboard), one client in 4 with a callback (a receiver failing one attempt in 3, so
// retries), and a slow keep-alive pool (a request every 5.5 s, idle timeout 60 s, as proxies
// keep theirs) that counts ECONNRESET.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Agent, createServer, get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { auth, serverCli, serverEnvironment, startProcess } from "../server/processes.mjs";
import { parseCsv, report } from "./growth.mjs";

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "20" },
    interval: { type: "string", default: "30" },
    out: { type: "string", default: join(tmpdir(), "genvideo-soak.csv") },
    smoke: { type: "boolean", default: false },
    creates: { type: "string", default: "20" },
    reads: { type: "string", default: "100" },
    downloads: { type: "string", default: "5" },
    pages: { type: "string", default: "1" },
    verdict: { type: "string" },
  },
});
if (flags.verdict) {
  const { rows, columns } = parseCsv(readFileSync(flags.verdict, "utf8"));
  console.log(report(rows, columns, flags.verdict));
  process.exit(0);
}
const smoke = flags.smoke;
const durationMs = smoke ? 6_000 : Number(flags.minutes) * 60_000;
const intervalMs = smoke ? 2_000 : Number(flags.interval) * 1000;
const rates = {
  creates: Number(flags.creates),
  reads: Number(flags.reads),
  downloads: Number(flags.downloads),
  pages: Number(flags.pages),
};

const dataDir = mkdtempSync(join(tmpdir(), "genvideo-soak-"));
const dbPath = join(dataDir, "genvideo.db");
const metricsPort = 20_000 + Math.floor(Math.random() * 20_000);
const env = {
  ...serverEnvironment(dataDir),
  GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
  GENVIDEO_METRICS_PORT: String(metricsPort),
  // At 60x: history passes retention after 30 real seconds, videos after 2 real minutes.
  GENVIDEO_HISTORY_RETENTION: "30m",
  GENVIDEO_VIDEO_RETENTION: "2m",
  GENVIDEO_VIDEO_SWEEP_INTERVAL: "20s",
};

// A webhook receiver that fails one attempt in three: deliveries retry.
let hooks = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(++hooks % 3 === 0 ? 500 : 204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const callbackUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const server = startProcess([serverCli, "start"], env);
const url = await server.url;
execFileSync(process.execPath, [serverCli, "accounts", "credit", "default", "1000000000"], {
  env: { ...process.env, ...env },
  stdio: "ignore",
});

// Load clients: fetch's own pool for the load; a slow keep-alive pool (node:http, idle sockets kept
// until the server closes them, as proxies keep theirs for 60 s) for the resets.
const slowPool = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies = { create: [], status: [], download: [], page: [] };
const counts = { requests: 0, errors5xx: 0, failures: 0, resets: 0 };
const finished = [];
let cookie;

async function timed(kind, input, init = {}) {
  const started = performance.now();
  try {
    const response = await fetch(input, init);
    const body = await response.arrayBuffer();
    latencies[kind]?.push(performance.now() - started);
    counts.requests++;
    if (response.status >= 500) counts.errors5xx++;
    return { response, body };
  } catch (error) {
    counts.failures++;
    if (String(error?.cause?.code ?? error?.code).includes("ECONNRESET")) counts.resets++;
    return undefined;
  }
}

const jsonHeaders = { ...auth, "content-type": "application/json" };
let created = 0;
async function create() {
  const withHook = created++ % 4 === 0;
  const body = JSON.stringify({
    prompt: `soak ${created}`,
    ...(withHook ? { callback_url: callbackUrl } : {}),
  });
  const result = await timed("create", `${url}/api/gen/generate`, {
    method: "POST",
    headers: jsonHeaders,
    body,
  });
  if (result?.response.status === 200) {
    const id = JSON.parse(Buffer.from(result.body).toString()).task_id;
    // Read once it has had time to finish (a second of service time at 60x, with room for load).
    setTimeout(() => finished.push(id), smoke ? 1_500 : 5_000).unref();
  }
}
async function status() {
  const id = finished[Math.floor(Math.random() * finished.length)];
  if (id) await timed("status", `${url}/api/gen/status/${id}`, { headers: auth });
}
async function download() {
  const id = finished.at(-1 - Math.floor(Math.random() * Math.min(50, finished.length)));
  if (!id) return;
  const read = await timed("status", `${url}/api/gen/status/${id}`, { headers: auth });
  const videoUrl = read && JSON.parse(Buffer.from(read.body).toString()).video_url;
  if (videoUrl) await timed("download", videoUrl, { headers: { range: "bytes=0-1023" } });
}
async function page() {
  if (cookie) await timed("page", `${url}/dashboard/tasks`, { headers: { cookie } });
}
function slow() {
  return new Promise((resolve) => {
    const request = get(`${url}/healthz`, { agent: slowPool }, (response) => {
      response.resume();
      response.on("end", () => {
        counts.requests++;
        resolve();
      });
    });
    request.on("error", (error) => {
      counts.failures++;
      if (error.code === "ECONNRESET") counts.resets++;
      resolve();
    });
  });
}

async function signIn() {
  const link = new URL(
    execFileSync(process.execPath, [serverCli, "dashboard", "link"], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .at(-1),
  );
  const response = await fetch(`${url}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: link.searchParams.get("token") }),
  });
  cookie = /^[^;]+/.exec(response.headers.get("set-cookie") ?? "")?.[0];
}
await signIn();

/** Calls `work` `perSecond` times a second, spread out, without waiting for answers (open loop). */
function every(perSecond, work) {
  if (perSecond <= 0) return () => undefined;
  const timer = setInterval(() => void work(), 1000 / perSecond);
  return () => clearInterval(timer);
}

// ---- sampling ----
function sizeOf(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
function videoFiles(dir) {
  let files = 0;
  let bytes = 0;
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(folder, entry.name));
      else if (entry.name.endsWith(".mp4")) {
        files++;
        bytes += sizeOf(join(folder, entry.name));
      }
    }
  };
  try {
    walk(dir);
  } catch {}
  return { files, bytes };
}
async function metric(text, name) {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : Number.NaN;
}
function p99(samples) {
  if (samples.length === 0) return "";
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)].toFixed(2);
}
function fds(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}
function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

const columns = [
  "t_s",
  "rss_mb",
  "heap_used_mb",
  "fds",
  "db_mb",
  "wal_mb",
  "video_files",
  "videos_mb",
  "requests",
  "create_p99_ms",
  "status_p99_ms",
  "download_p99_ms",
  "page_p99_ms",
  "errors_5xx",
  "failures",
  "resets",
];
const rows = [];
const began = performance.now();
async function sample() {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const videos = videoFiles(join(dataDir, "videos"));
  const row = {
    t_s: ((performance.now() - began) / 1000).toFixed(0),
    rss_mb: rssMb(server.pid).toFixed(1),
    heap_used_mb: ((await metric(text, "nodejs_heap_size_used_bytes")) / 2 ** 20).toFixed(1),
    fds: fds(server.pid),
    db_mb: (sizeOf(dbPath) / 2 ** 20).toFixed(2),
    wal_mb: (sizeOf(`${dbPath}-wal`) / 2 ** 20).toFixed(2),
    video_files: videos.files,
    videos_mb: (videos.bytes / 2 ** 20).toFixed(2),
    requests: counts.requests,
    create_p99_ms: p99(latencies.create),
    status_p99_ms: p99(latencies.status),
    download_p99_ms: p99(latencies.download),
    page_p99_ms: p99(latencies.page),
    errors_5xx: counts.errors5xx,
    failures: counts.failures,
    resets: counts.resets,
  };
  for (const list of Object.values(latencies)) list.length = 0;
  counts.requests = 0;
  rows.push(row);
  console.error(columns.map((column) => `${column}=${row[column]}`).join(" "));
}

const stops = [
  every(rates.creates, create),
  every(rates.reads, status),
  every(rates.downloads, download),
  every(rates.pages, page),
  every(1 / 5.5, slow),
];
const sampler = setInterval(() => void sample(), intervalMs);
await new Promise((resolve) => setTimeout(resolve, durationMs));
clearInterval(sampler);
for (const stop of stops) stop();
await sample();
await server.stop();
slowPool.destroy();
receiver.close();
rmSync(dataDir, { recursive: true, force: true });

const csv = [columns.join(","), ...rows.map((row) => columns.map((column) => row[column]).join(","))].join(
  "\n",
);
writeFileSync(flags.out, `${csv}\n`);

console.log(report(rows, columns, `written to ${flags.out}`));
process.exitCode = smoke ? (rows.length >= 2 && counts.errors5xx === 0 ? 0 : 1) : 0;
