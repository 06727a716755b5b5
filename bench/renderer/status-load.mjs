// Fixed-rate HTTP client, run as its own process so its work never shares the
// server's event loop: sends GETs at `rate` per second over `connections`
// keep-alive sockets for `seconds`, and prints latency percentiles in ms.
// Own client rather than autocannon: autocannon's histogram keeps whole
// milliseconds, too coarse for sub-millisecond loopback latencies.
import http from "node:http";

const [url, rateText = "200", secondsText = "10", connectionsText = "4"] = process.argv.slice(2);
const rate = Number(rateText);
const seconds = Number(secondsText);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connectionsText) });
const latencies = [];
let errors = 0;

function once() {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      response.on("end", () => {
        if (response.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        else errors++;
        resolve();
      });
    });
    request.on("error", () => {
      errors++;
      resolve();
    });
  });
}

const total = Math.round(rate * seconds);
const interval = 1000 / rate;
const begin = performance.now();
const inFlight = [];
for (let index = 0; index < total; index++) {
  const due = begin + index * interval;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  inFlight.push(once());
}
await Promise.all(inFlight);
agent.destroy();

latencies.sort((a, b) => a - b);
const at = (quantile) =>
  latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))] ?? NaN;
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    errors,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
  }),
);
