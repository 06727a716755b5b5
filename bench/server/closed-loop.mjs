// Closed-loop loads with autocannon: N connections, each sending its next
// request when the last is answered. They measure the maximum rate; their
// latencies at that rate are queueing (see wrk-load.mjs for latency).
import autocannon from "autocannon";
import { sized } from "../smoke.mjs";

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Seconds of each load (wrk's are whole seconds, at least one). */
export const DURATION_S = Number(process.env.BENCH_DURATION ?? sized(5, 0.5));
export const WARM_UP_S = Number(process.env.BENCH_WARM_UP ?? sized(2, 0));

export function load(name, options) {
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
 * Two seconds of the same load (none in smoke mode), not recorded, before a workload's first round:
 * the rounds then measure servers whose code is compiled and whose caches hold
 * what the load reads (a server just restarted on 100 000 tasks has neither).
 */
export function warmUp(options) {
  if (WARM_UP_S === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: WARM_UP_S, ...options }, (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

/** Cycles through `paths`, so reads hit many rows rather than one cached page. */
export function cyclingRequests(paths, headers) {
  let next = 0;
  return [
    {
      method: "GET",
      headers,
      setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }),
    },
  ];
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
