// Every benchmark under bench/, in the order `pnpm bench` runs them (they share two cores), with
// what each must print. `run-all.mjs` runs their full commands (a diagnostic only when named);
// `smoke.test.mjs` (`pnpm bench:smoke`, a CI step) runs each with `--smoke` and checks that it
// exits 0 and prints its figures.

/**
 * @typedef {object} Benchmark
 * @property {string} name  what `pnpm bench <name>` selects
 * @property {string} what  what it measures, for the run's headings
 * @property {string} command  run from bench/; smoke mode appends `--smoke`
 * @property {RegExp[]} figures  lines its output holds in either mode (its figures, as numbers)
 * @property {boolean} [diagnostic]  a tool for working on the server, not a figure with a target:
 *   `pnpm bench` runs it only when named
 */

/** A number as the benchmarks print one (never NaN). */
const number = String.raw`\d+(?:\.\d+)?`;
const line = (text) => new RegExp(text.replaceAll("N", number));

/** @type {Benchmark[]} */
export const benchmarks = [
  {
    name: "sdk-size",
    what: "SDK bundle min+gzip vs openai, replicate, runway, fal",
    command: "node sdk/size.mjs",
    figures: [line(String.raw`@genvideo/sdk\s+N KB\s+N KB`), line(String.raw`openai\s+N KB\s+N KB`)],
  },
  {
    name: "sdk-overhead",
    what: "getStatus vs ky with the same policy (stub server), and per call with a mocked fetch",
    command: "node sdk/overhead.mjs",
    figures: [line("ratio getStatus / ky with the policy: Nx"), line("the SDK's own cost: +-?N µs per call")],
  },
  {
    name: "sdk-overhead-reference",
    what: "getStatus vs ky with the same policy, reference server",
    command: "node sdk/overhead.mjs --server reference",
    figures: [line("server: reference"), line("ratio getStatus / ky with the policy: Nx")],
  },
  {
    name: "msw-overhead",
    what: "status read through the mock vs a constant msw handler",
    command: "node msw/overhead.mjs",
    figures: [line(String.raw`ratio Nx \(target at most Nx\)`)],
  },
  {
    name: "server",
    what: "status reads/s and creates/s vs bare Hono; p99 with 100 000 tasks, saturated and at half load (wrk open loop)",
    command: "node server/run.mjs",
    figures: [
      line("status reads vs baseline GET: +N%"),
      line("creates vs baseline POST: +N%"),
      line(String.raw`status p99 with N tasks at half the maximum \(N req/s of N max`),
    ],
  },
  {
    name: "server-pinned",
    what: "the same reads and creates, server and bare Hono pinned to CPU 0, wrk to CPU 1",
    command: "node server/run.mjs --pinned",
    figures: [
      line("status reads vs bare Hono on its core: +N%"),
      line("creates vs bare Hono on its core: +N%"),
    ],
  },
  {
    name: "renderer-time",
    what: "default clip render time before/after (median of 5); renders per second with 2 slots",
    command: "node renderer/render-time.mjs",
    figures: [
      line(String.raw`CPU time \(all processes\), median of N: before N ms, after N ms`),
      line("renders per second with 2 slots"),
      line(String.raw`CPU time of a render \(all processes\), median N ms; goal N ms`),
    ],
  },
  {
    name: "renderer",
    what: "default clip render time; status p99 idle vs during 2 renders",
    command: "node renderer/render-latency.mjs",
    figures: [
      line(String.raw`default clip \(640x360, N s, 24 fps, text to video\): median N ms`),
      line("median p99 over rounds: idle N ms, during 2 renders N ms"),
    ],
  },
  {
    name: "postgres",
    what: "API processes on PostgreSQL (1, 2) vs SQLite and vs the one-round-trip ceiling; tasks/s with 1, 2, 4 worker processes vs graphile-worker",
    command: "node postgres/run.mjs",
    figures: [
      line(String.raw`status reads: ceiling N/s( \(N µs CPU each\))?, genvideo N/s( \(N µs CPU each\))?: N%`),
      line(String.raw`creates: +ceiling N/s( \(N µs CPU each\))?, genvideo N/s( \(N µs CPU each\))?: N%`),
      line("load average before N, after N"),
    ],
  },
  {
    name: "postgres-pinned",
    what: "one API process on PostgreSQL vs the one-round-trip ceiling, both pinned to CPU 0, wrk and PostgreSQL to CPU 1",
    command: "node postgres/run.mjs --pinned",
    figures: [
      line(String.raw`status reads: ceiling N/s \(N µs CPU each\), genvideo N/s \(N µs CPU each\): N%`),
      line(String.raw`creates: +ceiling N/s \(N µs CPU each\), genvideo N/s \(N µs CPU each\): N%`),
      line("both pinned to CPU 0, wrk and PostgreSQL to CPU 1"),
    ],
  },
  {
    name: "webhooks",
    what: "deliveries/s to a fast receiver, alone and among 100 dead ones",
    command: "node webhooks/run.mjs",
    figures: [line("with N dead receivers: N% of the throughput alone")],
  },
  {
    name: "telemetry",
    what: "status reads/s and creates/s with metrics and traces off, metrics on, metrics and traces on",
    command: "node telemetry/run.mjs",
    figures: [line(String.raw`metrics \+ traces\s+N\s+N%`)],
  },
  {
    name: "dashboard",
    what: "task list page and its next page with 100 000 tasks, p99",
    command: "node dashboard/run.mjs",
    figures: [line(String.raw`GET /dashboard/tasks \(first page\)\s+N\s+N`)],
  },
  {
    name: "server-in-process",
    what: "the engine's share of a status read and a create, its app called without HTTP",
    command: "node server/in-process.mjs",
    figures: [line("status: median N µs/request"), line("creates: median N µs/request")],
    diagnostic: true,
  },
  {
    name: "server-cpu-per-request",
    what: "the server's CPU time per status read and create, beside bare Hono's",
    command: "node server/cpu-per-request.mjs",
    figures: [line("median status: N µs CPU/request"), line("median creates: N µs CPU/request")],
    diagnostic: true,
  },
  {
    name: "server-profile",
    what: "where the server's time goes under status reads (--cpu-prof), by function and by file",
    command: "node server/profile.mjs status",
    figures: [line("status: N req/s"), line(String.raw`self time by file:\n +N%`)],
    diagnostic: true,
  },
  {
    name: "telemetry-in-process",
    what: "what metrics cost a status read and a create, two servers' apps in one process",
    command: "node telemetry/in-process.mjs",
    figures: [line("in process, reads: N µs off, N µs with metrics"), line("in process, creates: N µs off")],
    diagnostic: true,
  },
  {
    name: "soak-smoke",
    what: "a few seconds of the soak's mixed load (node soak/run.mjs --minutes 20 for the real one): CSV and verdict",
    // The real soak takes 20 minutes: `pnpm bench` runs it as a smoke run too.
    command: "node soak/run.mjs --smoke",
    figures: [line("verdict: ")],
  },
];

/** The command that runs `benchmark` in smoke mode. */
export function smokeCommand(benchmark) {
  return benchmark.command.includes("--smoke") ? benchmark.command : `${benchmark.command} --smoke`;
}
