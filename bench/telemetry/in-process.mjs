// What metrics cost a request, measured where a shared machine's noise reaches least: two instances
// of the built server in this one process (SQLite on disk, fixture renders, logs silenced), one
// with GENVIDEO_METRICS_PORT set and one without, their apps called in a loop, in short rounds
// that alternate which goes first; medians of the per-round ratios. Both instances share the CPU this
// process gets, so a busy spell slows both alike. The in-process figure for `run.mjs`'s metrics
// target; traces are process-wide in OpenTelemetry, so they are measured by `run.mjs` only.
//
//   node bench/telemetry/in-process.mjs [requests per round] [rounds]

import { median } from "../server/closed-loop.mjs";
import { startInProcessServer } from "../server/in-process-server.mjs";
import { positionals, sized } from "../smoke.mjs";

const REQUESTS = Number(positionals[0] ?? sized(2000, 100));
const ROUNDS = Number(positionals[1] ?? sized(15, 1));

async function startServer(name, env) {
  const { server, get, post, stop } = await startInProcessServer(env);
  return { name, server, loads: { reads: get, creates: post }, stop };
}

/** Microseconds per request, `REQUESTS` of them, 8 at a time. */
async function time(send) {
  const started = performance.now();
  let left = REQUESTS;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) {
        const response = await send();
        if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
      }
    }),
  );
  return ((performance.now() - started) * 1000) / REQUESTS;
}

const off = await startServer("off", {});
const metrics = await startServer("metrics", { GENVIDEO_METRICS_PORT: "0" });
try {
  if (!metrics.server.metricsUrl || off.server.metricsUrl)
    throw new Error("the variants are not what they claim");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const ratios = { reads: [], creates: [] };
  const micros = { off: { reads: [], creates: [] }, metrics: { reads: [], creates: [] } };
  for (const kind of ["reads", "creates"]) {
    // Warm-up: JIT, caches, both instances.
    await time(off.loads[kind]);
    await time(metrics.loads[kind]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [off, metrics] : [metrics, off];
      const result = {};
      for (const variant of order) result[variant.name] = await time(variant.loads[kind]);
      // Scraped between rounds, as Prometheus would now and then.
      await fetch(metrics.server.metricsUrl).then((response) => response.text());
      micros.off[kind].push(result.off);
      micros.metrics[kind].push(result.metrics);
      ratios[kind].push(result.metrics / result.off);
    }
  }
  for (const kind of ["reads", "creates"]) {
    const cost = (median(ratios[kind]) - 1) * 100;
    console.log(
      `in process, ${kind}: ${median(micros.off[kind]).toFixed(1)} µs off, ${median(micros.metrics[kind]).toFixed(1)} µs with metrics: ${cost >= 0 ? "+" : ""}${cost.toFixed(1)}% (median of ${ROUNDS} rounds of ${REQUESTS})`,
    );
  }
} finally {
  await off.stop();
  await metrics.stop();
}
