// `pnpm bench`: every benchmark in one run, one after the other (they share two cores),
// then a summary. A benchmark exits non-zero when it misses its target or fails;
// the run goes on either way, so one miss does not hide the other figures.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const only = process.argv.slice(2);

/** [name, what it measures, command]. Builds come first: each measures built code. */
const benchmarks = [
  ["sdk-size", "SDK bundle min+gzip vs openai, replicate, runway, fal", "node sdk/size.mjs"],
  [
    "sdk-overhead",
    "getStatus vs ky with the same policy (stub server), and per call with a mocked fetch",
    "node sdk/overhead.mjs",
  ],
  [
    "sdk-overhead-reference",
    "getStatus vs ky with the same policy, reference server",
    "node sdk/overhead.mjs --server reference",
  ],
  ["msw-overhead", "status read through the mock vs a constant msw handler", "node msw/overhead.mjs"],
  [
    "server",
    "status reads/s and creates/s vs bare Hono; p99 with 100 000 tasks, saturated and at half load (wrk open loop)",
    "node server/run.mjs",
  ],
  [
    "renderer-time",
    "default clip render time before/after (median of 5); renders per second with 2 slots",
    "node renderer/render-time.mjs",
  ],
  [
    "renderer",
    "default clip render time; status p99 idle vs during 2 renders",
    "node renderer/render-latency.mjs",
  ],
  [
    "postgres",
    "API processes on PostgreSQL (1, 2) vs SQLite; tasks/s with 1, 2, 4 worker processes vs graphile-worker",
    "node postgres/run.mjs",
  ],
  ["webhooks", "deliveries/s to a fast receiver, alone and among 100 dead ones", "node webhooks/run.mjs"],
  [
    "telemetry",
    "status reads/s and creates/s with metrics and traces off, metrics on, metrics and traces on",
    "node telemetry/run.mjs",
  ],
  ["dashboard", "task list page and its next page with 100 000 tasks, p99", "node dashboard/run.mjs"],
  [
    "soak-smoke",
    "a few seconds of the soak's mixed load (node soak/run.mjs --minutes 20 for the real one): CSV and verdict",
    "node soak/run.mjs --smoke",
  ],
];

const build = spawnSync("pnpm", ["--dir", "..", "run", "build"], { cwd: here, stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

const results = [];
for (const [name, what, command] of benchmarks) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`\n=== ${name}: ${what}\n$ ${command}`);
  const started = performance.now();
  const run = spawnSync(command, { cwd: here, stdio: "inherit", shell: true });
  results.push({ name, status: run.status ?? 1, seconds: (performance.now() - started) / 1000 });
}

console.log("\n=== summary");
for (const { name, status, seconds } of results) {
  console.log(
    `${name.padEnd(24)} ${status === 0 ? "ok (target met)" : "target missed or failed"}  ${seconds.toFixed(0)} s`,
  );
}
process.exitCode = results.some((result) => result.status !== 0) ? 1 : 0;
