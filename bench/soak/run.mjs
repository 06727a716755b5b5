// A soak: the built server on SQLite under a mixed load for N minutes, sampled every interval
// into a CSV (memory, descriptors, database and video sizes, p99 per request kind, errors,
// connection resets), then one line saying what grew (soak/growth.mjs). History retention and
// video retention are short, so both pass during the run: the sizes should level off, not climb.
//
//   node soak/run.mjs --minutes 20 [--interval 30] [--out soak.csv]
//   node soak/run.mjs --smoke           (a few seconds: that it runs and writes its CSV)
//   node soak/run.mjs --verdict soak.csv (the summary of a CSV written before)
//
// Load per second (flags): --creates 20, --reads 100, --downloads 5 (Range), --pages 1
// (dashboard), one client in 4 with a callback (a receiver failing one attempt in 3, so
// retries), and a slow keep-alive pool (a request every 5.5 s, idle timeout 60 s, as proxies
// keep theirs) that counts ECONNRESET. --streams 2 dashboard live-stream clients each hold
// the task list's event stream for 5 to 30 s, drop it and connect again, as browsers do.
//
// Memory: RSS moves by tens of MiB with no leak: V8 sizes its young generation with the
// allocation rate (4 to 128 MiB in a 14-minute run), and keeps pages it freed. So
// the CSV splits RSS: file-backed (code, SQLite's mapping of the database), V8's heap pages, and
// native memory (the rest of the anonymous memory: malloc, buffers, SQLite's page cache). A leak
// shows in heap_used_mb (JavaScript objects) or native_mb: those are what the verdict watches.
// The database stays small (short retention), so SQLite's caches do not show here.
import { execFileSync } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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
    streams: { type: "string", default: "2" },
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
  streams: Number(flags.streams),
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
// A soak that fails or is stopped halfway leaves no server running nor its data behind.
process.once("exit", () => {
  server.signal("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(1));
const url = await server.url;
execFileSync(process.execPath, [serverCli, "accounts", "credit", "default", "1000000000"], {
  env: { ...process.env, ...env },
  stdio: "ignore",
});

// Load clients: fetch's own pool for the load; a slow keep-alive pool (node:http, idle sockets kept
// until the server closes them, as proxies keep theirs for 60 s) for the resets.
const slowPool = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies = { create: [], status: [], download: [], page: [] };
const counts = { requests: 0, errors5xx: 0, failures: 0, resets: 0, streamEvents: 0 };
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

/**
 * One browser on the live task list: reads the list page's stream URL, holds the stream for
 * 5 to 30 s, drops it and starts over, until `stopped`.
 */
async function liveClient(stopped) {
  while (!stopped.aborted) {
    const listed = await timed("page", `${url}/dashboard/tasks`, { headers: { cookie } });
    const live = /data-live="([^"]+)"/.exec(Buffer.from(listed?.body ?? new ArrayBuffer(0)).toString())?.[1];
    const signal = AbortSignal.any([
      stopped,
      AbortSignal.timeout(Math.round(5_000 + Math.random() * 25_000)),
    ]);
    if (!live) {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      continue;
    }
    try {
      const response = await fetch(new URL(live.replaceAll("&amp;", "&"), url), {
        headers: { cookie },
        signal,
      });
      if (response.status >= 500) counts.errors5xx++;
      for await (const text of response.body.pipeThrough(new TextDecoderStream()))
        counts.streamEvents += text.split("\n\n").length - 1;
    } catch (error) {
      if (!signal.aborted) {
        counts.failures++;
        if (String(error?.cause?.code ?? error?.code).includes("ECONNRESET")) counts.resets++;
      }
    }
  }
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

/**
 * Calls `work` `perSecond` times a second, spread out, without waiting for answers (open loop).
 * Calls are counted from the start, not per timer tick: a timer every 10 ms fired about 70 times a
 * second on a busy machine, and the load fell short of its rate without saying so.
 */
function every(perSecond, work) {
  if (perSecond <= 0) return () => undefined;
  const started = performance.now();
  let calls = 0;
  const timer = setInterval(
    () => {
      const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
      for (; calls < due; calls++) void work();
    },
    Math.min(100, 1000 / perSecond),
  );
  return () => clearInterval(timer);
}

/** Starts `count` live-stream clients; the returned function drops their streams and stops them. */
function streaming(count) {
  const stop = new AbortController();
  const clients = Array.from({ length: count }, () => liveClient(stop.signal));
  return () => {
    stop.abort();
    return Promise.all(clients);
  };
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
/** A sample's value in the Prometheus text, `name` with its labels as the server writes them. */
function metric(text, name) {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : Number.NaN;
}
const mib = (bytes) => bytes / 2 ** 20;
function p99(samples) {
  if (samples.length === 0) return "";
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)].toFixed(2);
}
/**
 * The server's descriptors: files (the database, videos, pipes: what must stay flat) apart from
 * sockets, which follow how many connections the load's clients keep open (their pools grow and
 * shrink), and of those the ones the client has closed and the server has not (CLOSE_WAIT): a
 * server that forgot a connection shows there, not in the socket count.
 */
function descriptors(pid) {
  let links;
  try {
    links = readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return "";
      }
    });
  } catch {
    return { file_fds: Number.NaN, socket_fds: Number.NaN, close_wait: Number.NaN };
  }
  const inodes = new Set(links.flatMap((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1] ?? []));
  let closeWait = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {}
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 08 is CLOSE_WAIT; the inode is the tenth field.
      if (fields[3] === "08" && inodes.has(fields[9])) closeWait++;
    }
  }
  return { file_fds: links.length - inodes.size, socket_fds: inodes.size, close_wait: closeWait };
}
/** Resident memory in MiB from /proc: all of it, anonymous (heap, malloc), and file-backed (code, mmap). */
function residentMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024;
  return { rss: field("VmRSS"), anon: field("RssAnon"), file: field("RssFile") };
}
/**
 * Resident MiB by mapping (/proc/<pid>/smaps): V8's heap, which it maps in anonymous pages of 256
 * KiB (and one range for compiled code), freed pages it pools for reuse included; and the
 * database file and its WAL index as SQLite maps them (mmap_size, -shm).
 */
function mappedMb(pid) {
  let v8 = 0;
  let database = 0;
  let kind;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (mapping) {
      const [, start, end, mode, path] = mapping;
      const kib = (Number.parseInt(end, 16) - Number.parseInt(start, 16)) / 1024;
      const v8Page = path === "" && ((kib === 256 && mode === "rw-p") || mode === "rwxp");
      kind = v8Page ? "v8" : path.includes(dbPath) ? "database" : undefined;
    } else if (kind && line.startsWith("Rss:")) {
      const kib = Number(/(\d+)/.exec(line)[1]);
      if (kind === "v8") v8 += kib;
      else database += kib;
    }
  }
  return { v8: v8 / 1024, database: database / 1024 };
}

const columns = [
  "t_s",
  "rss_mb",
  "anon_mb",
  "file_mb",
  "v8_mb",
  "native_mb",
  "young_mb",
  "db_mapped_mb",
  "heap_used_mb",
  "old_used_mb",
  "external_mb",
  "file_fds",
  "socket_fds",
  "close_wait",
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
  "stream_events",
];
const rows = [];
const began = performance.now();
async function sample() {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const videos = videoFiles(join(dataDir, "videos"));
  const resident = residentMb(server.pid);
  const mapped = mappedMb(server.pid);
  const row = {
    t_s: ((performance.now() - began) / 1000).toFixed(0),
    rss_mb: resident.rss.toFixed(1),
    anon_mb: resident.anon.toFixed(1),
    file_mb: resident.file.toFixed(1),
    v8_mb: mapped.v8.toFixed(1),
    native_mb: (resident.anon - mapped.v8).toFixed(1),
    young_mb: mib(metric(text, 'nodejs_heap_space_size_total_bytes{space="new"}')).toFixed(1),
    db_mapped_mb: mapped.database.toFixed(2),
    heap_used_mb: mib(metric(text, "nodejs_heap_size_used_bytes")).toFixed(1),
    old_used_mb: mib(metric(text, 'nodejs_heap_space_size_used_bytes{space="old"}')).toFixed(1),
    external_mb: mib(metric(text, "nodejs_external_memory_bytes")).toFixed(1),
    ...descriptors(server.pid),
    db_mb: mib(sizeOf(dbPath)).toFixed(2),
    wal_mb: mib(sizeOf(`${dbPath}-wal`)).toFixed(2),
    video_files: videos.files,
    videos_mb: mib(videos.bytes).toFixed(2),
    requests: counts.requests,
    create_p99_ms: p99(latencies.create),
    status_p99_ms: p99(latencies.status),
    download_p99_ms: p99(latencies.download),
    page_p99_ms: p99(latencies.page),
    errors_5xx: counts.errors5xx,
    failures: counts.failures,
    resets: counts.resets,
    stream_events: counts.streamEvents,
  };
  for (const list of Object.values(latencies)) list.length = 0;
  counts.requests = 0;
  counts.streamEvents = 0;
  rows.push(row);
  console.error(columns.map((column) => `${column}=${row[column]}`).join(" "));
}

const stops = [
  every(rates.creates, create),
  every(rates.reads, status),
  every(rates.downloads, download),
  every(rates.pages, page),
  every(1 / 5.5, slow),
  streaming(rates.streams),
];
const sampler = setInterval(() => void sample(), intervalMs);
await new Promise((resolve) => setTimeout(resolve, durationMs));
clearInterval(sampler);
await Promise.all(stops.map((stop) => stop()));
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
