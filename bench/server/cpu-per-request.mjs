// CPU time the server process spends per request (user + system, from
// /proc), next to the baseline's: steadier than requests per second on a
// loaded machine, where the load generator and other work share the cores.
// Linux only.
//
//   node bench/server/cpu-per-request.mjs [seconds] [rounds]

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { positionals, sized } from "../smoke.mjs";
import { cpuMicros } from "./process-cpu.mjs";
import { auth, createBody, startProcess, startSeededServer } from "./processes.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const seconds = Number(positionals[0] ?? sized(4, 0.5));
const rounds = Number(positionals[1] ?? sized(3, 1));

async function measure(name, pid, options) {
  const before = cpuMicros(pid);
  const result = await autocannon({ connections: 50, duration: seconds, ...options });
  const cpu = cpuMicros(pid) - before;
  const requests = result.requests.total;
  return {
    name,
    perRequest: cpu / requests,
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

const baseline = startProcess([join(here, "baseline-server.mjs")], { PORT: "0" });
let seeded;
try {
  seeded = await startSeededServer({ name: "cpu", logLevel: process.env.GENVIDEO_LOG_LEVEL });
  const { child: server, url, taskIds: ids } = seeded;
  const baselineUrl = await baseline.url;
  const headers = { ...auth, "content-type": "application/json" };
  await new Promise((resolve) => setTimeout(resolve, 3000));
  let next = 0;
  const statusRequests = [
    {
      method: "GET",
      headers: auth,
      setupRequest: (request) => ({ ...request, path: `/api/gen/status/${ids[next++ % ids.length]}` }),
    },
  ];
  const rows = [];
  for (let round = 0; round < rounds; round++) {
    rows.push(
      await measure("baseline GET", baseline.pid, { url: `${baselineUrl}/api/gen/status/${ids[0]}` }),
    );
    rows.push(await measure("status", server.pid, { url, requests: statusRequests }));
    rows.push(
      await measure("baseline POST", baseline.pid, {
        url: `${baselineUrl}/api/gen/generate`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: createBody,
      }),
    );
    rows.push(
      await measure("creates", server.pid, {
        url: `${url}/api/gen/generate`,
        method: "POST",
        headers,
        body: createBody,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  for (const row of rows)
    console.log(
      `${row.name.padEnd(14)} ${row.perRequest.toFixed(0).padStart(5)} µs CPU/request  ${String(row.rps).padStart(6)} req/s  p99 ${row.p99} ms${row.non2xx ? `  non-2xx ${row.non2xx}` : ""}`,
    );
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const name of ["baseline GET", "status", "baseline POST", "creates"])
    console.log(
      `median ${name}: ${median(rows.filter((r) => r.name === name).map((r) => r.perRequest)).toFixed(0)} µs CPU/request`,
    );
} finally {
  await Promise.all([seeded?.child.stop(), baseline.stop()]);
  seeded?.remove();
}
