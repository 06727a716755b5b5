// `pnpm bench telemetry`: what watching a server costs. Status reads and creates per second on
// three servers started alike (SQLite, fixture renders), in one run:
//   off      no metrics listener, no OTEL_* variables (the default);
//   metrics  GENVIDEO_METRICS_PORT set, and /metrics scraped every second during the load
//            (Prometheus's default is every 15 s to a minute: a second is the pessimistic case);
//   traces   metrics as above, plus traces of every request (the default parent-based sampler
//            samples all) exported by OTLP http/protobuf to a receiver in this process.
// Target: metrics on costs at most 3% of the throughput of off, for reads and for creates.
//
// A shared machine drifts: the three run in rounds, one after the other in each round (each round
// starting with the next one), and the figure reported for each is the median of its rounds' ratios
// to off in the same round. `--smoke`: one round of short loads, that it works (requests that
// fail still fail it; the cost is not judged).

import { cpus, loadavg } from "node:os";
import { serveOnLoopback } from "@genvideo/server/testing";
import { CONNECTIONS, cyclingRequests, DURATION_S, load, median, warmUp } from "../server/closed-loop.mjs";
import { cpuMicros } from "../server/process-cpu.mjs";
import { auth, createBody, settled, startSeededServer } from "../server/processes.mjs";
import { sized, smoke } from "../smoke.mjs";
import { textTable } from "../text-table.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(5, 1));
const MAX_METRICS_COST = 0.03;

/** An OTLP/HTTP endpoint that accepts and drops what it is sent, as a collector that keeps up. */
async function startTraceSink() {
  let exports = 0;
  const { origin, close } = await serveOnLoopback((request, response) => {
    request.resume();
    request.on("end", () => {
      exports++;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  return { endpoint: origin, exports: () => exports, close };
}

/**
 * One load on one variant, scraped as Prometheus would, with the server's CPU time per request:
 * on a shared machine whose other tenants take CPU at random, CPU per request is the steadier
 * measure of what the server itself spends.
 */
async function measured(variant, name, options) {
  const before = cpuMicros(variant.pid);
  const row = await scrapedDuring(variant.metricsUrl, () => load(`${variant.name} ${name}`, options));
  const after = cpuMicros(variant.pid);
  const requests = row.requestsPerSecond * DURATION_S;
  const cpuMicrosPerRequest =
    before === undefined || requests === 0 ? Number.NaN : (after - before) / requests;
  return { ...row, cpuMicrosPerRequest };
}

/**
 * Scrapes `/metrics` as `work` starts and every second while it runs, as a (busy) Prometheus
 * would; at least one scrape, finished by the time `work` is, must succeed.
 */
async function scrapedDuring(metricsUrl, work) {
  if (!metricsUrl) return work();
  let scrapes = 0;
  const inFlight = [];
  const scrape = () =>
    inFlight.push(
      fetch(metricsUrl)
        .then((response) => response.text())
        .then(
          () => scrapes++,
          () => undefined,
        ),
    );
  scrape();
  const timer = setInterval(scrape, 1000);
  let result;
  try {
    result = await work();
  } finally {
    clearInterval(timer);
    await Promise.all(inFlight);
  }
  if (scrapes === 0) throw new Error(`no scrape of ${metricsUrl} succeeded`);
  return result;
}

async function startVariant(name, extraEnv) {
  const { child, url, dbPath, taskIds, remove } = await startSeededServer({
    name: `bench-${name}`,
    env: extraEnv,
  });
  const stop = async () => {
    await child.stop();
    remove();
  };
  const metricsUrl = /"metrics":"([^"]+)"/.exec(child.output())?.[1];
  if (extraEnv.GENVIDEO_METRICS_PORT && !metricsUrl) {
    await stop();
    throw new Error(`${name}: no metrics URL logged`);
  }
  await settled(dbPath);
  return {
    name,
    url,
    pid: child.pid,
    metricsUrl,
    dbPath,
    statusPaths: taskIds.map((id) => `/api/gen/status/${id}`),
    stop,
  };
}

async function main() {
  const sink = await startTraceSink();
  const variants = [];
  try {
    console.error(
      `genvideo telemetry bench: ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`,
    );
    variants.push(await startVariant("off", {}));
    variants.push(await startVariant("metrics", { GENVIDEO_METRICS_PORT: "0" }));
    variants.push(
      await startVariant("metrics + traces", {
        GENVIDEO_METRICS_PORT: "0",
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      }),
    );
    const post = (variant) => ({
      url: `${variant.url}/api/gen/generate`,
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: createBody,
    });
    const read = (variant) => ({ url: variant.url, requests: cyclingRequests(variant.statusPaths, auth) });
    for (const variant of variants) {
      await warmUp(read(variant));
      await warmUp(post(variant));
      await settled(variant.dbPath);
    }

    const runs = Object.fromEntries(variants.map((variant) => [variant.name, { reads: [], creates: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another variant, so none is always first after a pause or last in a busy spell.
      const order = variants.map((_, index) => variants[(index + round) % variants.length]);
      for (const variant of order) {
        runs[variant.name].reads.push(await measured(variant, "status reads", read(variant)));
      }
      for (const variant of order) {
        runs[variant.name].creates.push(await measured(variant, "creates", post(variant)));
        await settled(variant.dbPath);
      }
    }

    const ratios = (name, kind) =>
      runs[name][kind].map((row, round) => row.requestsPerSecond / runs.off[kind][round].requestsPerSecond);
    const cpuRatios = (name, kind) =>
      runs[name][kind].map(
        (row, round) => row.cpuMicrosPerRequest / runs.off[kind][round].cpuMicrosPerRequest,
      );
    const rows = [
      ["", "reads/s", "vs off", "CPU µs/read", "vs off", "creates/s", "vs off", "CPU µs/create", "vs off"],
    ];
    const percent = (values) => `${(median(values) * 100).toFixed(1)}%`;
    for (const { name } of variants) {
      const pick = (kind, key) => median(runs[name][kind].map((row) => row[key]));
      rows.push([
        name,
        String(pick("reads", "requestsPerSecond")),
        percent(ratios(name, "reads")),
        pick("reads", "cpuMicrosPerRequest").toFixed(0),
        percent(cpuRatios(name, "reads")),
        String(pick("creates", "requestsPerSecond")),
        percent(ratios(name, "creates")),
        pick("creates", "cpuMicrosPerRequest").toFixed(0),
        percent(cpuRatios(name, "creates")),
      ]);
    }
    console.log(`\n${textTable(rows)}`);
    console.log(
      `(medians of ${ROUNDS} rounds; "vs off" is the median of each round's ratio to off; ${sink.exports()} trace exports received)`,
    );
    const failures = [];
    for (const kind of ["reads", "creates"]) {
      const cost = 1 - median(ratios("metrics", kind));
      if (cost > MAX_METRICS_COST && !smoke)
        failures.push(`metrics cost ${(cost * 100).toFixed(1)}% of ${kind} (target <= 3%)`);
    }
    const errors = Object.values(runs)
      .flatMap((kinds) => [...kinds.reads, ...kinds.creates])
      .some((row) => row.non2xx || row.errors);
    if (errors) failures.push("some requests failed");
    if (failures.length > 0) {
      console.log(`MISSED: ${failures.join("; ")}`);
      process.exitCode = 1;
    } else if (!smoke) {
      console.log("met: metrics cost at most 3% of status reads and of creates");
    }
  } finally {
    for (const variant of variants) await variant.stop();
    await sink.close();
  }
}

await main();
