// An open-loop load at a fixed rate: request i is due at start + i / rate and
// goes out then whether or not earlier ones have been answered, so a stalled
// server shows in the percentiles instead of slowing the load down (no
// coordinated omission, unlike a closed loop of N connections, whose p99 at
// saturation measures queueing).
//
// The client must cost little: it shares the machine with the server, and
// its own lateness would be counted as the server's. So it sends through
// undici's Pool with `dispatch` (no streams, no promise per request), and it
// records three moments per request: when it was due, when its bytes were
// written to the socket, and when the last byte of the answer arrived.
// `latency` (written → answered) is what the server and the loopback add;
// `sendLag` (due → written) is the client's own timer and event-loop
// lateness, reported beside it, never hidden in it; `fromDue` is both.
import { Pool } from "undici";

/** Sockets open at once: more than the requests a stall of ~50 ms leaves outstanding at 5000 req/s. */
const CONNECTIONS = 256;
/** Seconds past the last due moment after which requests still unanswered count as failed. */
const GRACE_S = 30;

/**
 * GETs `paths` in turn at `rate` per second for `seconds` against `url`.
 * Resolves with percentiles (ms) of each measure, the rate achieved and failures.
 */
export async function fixedRateLoad({ url, paths, headers = {}, rate, seconds }) {
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
  // Every socket open before the clock starts: a connect is not a status read.
  await Promise.all(
    Array.from({ length: CONNECTIONS }, (_, index) =>
      pool
        .request({ path: paths[index % paths.length], method: "GET", headers })
        .then(({ body }) => body.dump()),
    ),
  );
  const total = Math.max(1, Math.round(rate * seconds));
  const dueAt = new Float64Array(total);
  const writtenAt = new Float64Array(total);
  const answeredAt = new Float64Array(total);
  let failures = 0;
  let non2xx = 0;
  let answered = 0;
  let start = 0;
  const finished = new Promise((resolve) => {
    const settle = () => {
      if (++answered === total) resolve();
    };
    const send = (index) => {
      pool.dispatch(
        { path: paths[index % paths.length], method: "GET", headers },
        {
          onRequestStart() {},
          onRequestSent() {
            writtenAt[index] = performance.now();
          },
          onResponseStart(_controller, statusCode) {
            if (statusCode < 200 || statusCode > 299) non2xx++;
          },
          onResponseData() {},
          onResponseEnd() {
            answeredAt[index] = performance.now();
            settle();
          },
          onResponseError() {
            failures++;
            answeredAt[index] = performance.now();
            if (writtenAt[index] === 0) writtenAt[index] = answeredAt[index];
            settle();
          },
        },
      );
    };
    let sent = 0;
    // Each turn sends whatever has come due; a late timer delays requests (the
    // send lag shows it) but never drops or thins them.
    const pump = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) * rate) / 1000) + 1);
      while (sent < due) {
        dueAt[sent] = start + (sent * 1000) / rate;
        send(sent++);
      }
      if (sent < total) setTimeout(pump, Math.max(0, start + (sent * 1000) / rate - performance.now()));
    };
    start = performance.now() + 50;
    setTimeout(pump, 50);
  });
  // A server that stops answering must not hang the bench: unanswered requests count as failures.
  let giveUp;
  const gaveUp = new Promise((resolve) => {
    giveUp = setTimeout(resolve, (seconds + GRACE_S) * 1000, "gave up");
  });
  if ((await Promise.race([finished, gaveUp])) === "gave up") {
    for (let index = 0; index < total; index++) {
      if (answeredAt[index] !== 0) continue;
      failures++;
      answeredAt[index] = performance.now();
      if (writtenAt[index] === 0) writtenAt[index] = answeredAt[index];
    }
  }
  clearTimeout(giveUp);
  const elapsed = (writtenAt.reduce((last, time) => Math.max(last, time), 0) - start) / 1000;
  await pool.destroy();
  const latency = new Float64Array(total);
  const sendLag = new Float64Array(total);
  const fromDue = new Float64Array(total);
  for (let index = 0; index < total; index++) {
    latency[index] = answeredAt[index] - writtenAt[index];
    sendLag[index] = writtenAt[index] - dueAt[index];
    fromDue[index] = answeredAt[index] - dueAt[index];
  }
  return {
    requests: total,
    offeredRate: rate,
    // Requests over the time from the first due moment to the last write: below
    // the offered rate when the client could not keep up.
    achievedRate: Math.round(total / Math.max(elapsed, 1 / rate)),
    ...percentiles(latency),
    sendLag: percentiles(sendLag),
    fromDue: percentiles(fromDue),
    non2xx,
    failures,
  };
}

function percentiles(values) {
  const sorted = values.sort();
  const at = (fraction) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] * 100) / 100;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: at(1) };
}
