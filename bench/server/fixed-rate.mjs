// An open-loop load at a fixed rate: request i is sent at start + i / rate
// whether or not earlier ones have been answered, and its latency counts from
// that scheduled moment, not from when it went out. A stalled server thus
// shows in the percentiles (no coordinated omission, unlike a closed loop of
// N connections, whose p99 at saturation measures queueing).
import http from "node:http";

/**
 * GETs `paths` in turn at `rate` per second for `seconds` against `url`.
 * Resolves with latency percentiles (ms), the rate achieved and failures.
 */
export async function fixedRateLoad({ url, paths, headers = {}, rate, seconds }) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.max(1, Math.round(rate * seconds));
  const latencies = new Float64Array(total);
  let failures = 0;
  let non2xx = 0;
  let answered = 0;
  const start = performance.now() + 50;
  const finished = new Promise((resolve) => {
    let sent = 0;
    const send = (index) => {
      const scheduled = start + (index * 1000) / rate;
      const request = http.get(
        { agent, hostname, port, path: paths[index % paths.length], headers },
        (response) => {
          if (response.statusCode < 200 || response.statusCode > 299) non2xx++;
          response.resume();
          response.on("end", () => {
            latencies[index] = performance.now() - scheduled;
            if (++answered === total) resolve();
          });
        },
      );
      request.on("error", () => {
        failures++;
        latencies[index] = performance.now() - scheduled;
        if (++answered === total) resolve();
      });
    };
    // Each turn sends whatever has come due, so a late timer delays requests
    // (and counts against them) but never drops or thins them.
    const pump = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(pump, 1);
    };
    setTimeout(pump, 50);
  });
  await finished;
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (fraction) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] * 100) / 100;
  return {
    requests: total,
    achievedRate: Math.round(total / elapsed),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: at(1),
    non2xx,
    failures,
  };
}
