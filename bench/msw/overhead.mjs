// Overhead of @genvideo/msw on a status read: `fetch` of GET /api/gen/status/<id> answered by the
// mock's handlers (the engine's Hono app: auth with a SHA-256 of the key, the task from the
// in-memory store, the status body) versus a minimal hand-written msw handler that returns a
// constant body of the same shape. Both run under one `setupServer` in this process, through the
// same global `fetch` and msw interception; calls alternate one by one (constant, mock, constant,
// mock, ...) so drift in CPU speed and GC hits both alike, and the ratio compares medians.
// Rate limits are off in the mock (1200 reads a minute would refuse a benchmark).
// Run after `pnpm --filter @genvideo/msw build`:
//   node bench/msw/overhead.mjs [--calls 4000] [--target 3] [--json] [--smoke]
// (--smoke: 100 calls after a short warm-up; the ratio is printed, not judged)
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { sized, smoke, verdict } from "../smoke.mjs";

// This directory's package.json is not ours to change: msw and the mock resolve from packages/msw,
// so the handlers and `setupServer` come from one copy of msw.
const mswPackage = new URL("../../packages/msw/", import.meta.url);
const packageRequire = createRequire(new URL("package.json", mswPackage));
const importFromPackage = async (specifier) => import(pathToFileURL(packageRequire.resolve(specifier)).href);
const { http, HttpResponse } = await importFromPackage("msw");
const { setupServer } = await importFromPackage("msw/node");
const { createGenVideoMock } = await import(new URL("dist/index.js", mswPackage).href);

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : process.argv[index + 1];
};
const calls = Number(argument("calls", sized("4000", "100")));
const target = Number(argument("target", "3"));

const mock = createGenVideoMock({ baseUrl: "https://api.genvideo.test", rateLimits: false });
const constantBody = {
  status: "processing",
  task_id: "4f1c2a9e-3b7d-4c8e-9a6f-1d2e3f4a5b6c",
  message: "Video is being generated",
  progress: 42,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};
const server = setupServer(
  http.get("https://constant.test/api/gen/status/:taskId", () => HttpResponse.json(constantBody)),
  ...mock.handlers,
);
server.listen({ onUnhandledFrame: "error" });

const headers = { authorization: `Bearer ${mock.apiKey}` };
const created = await fetch(`${mock.baseUrl}/api/gen/generate`, {
  method: "POST",
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify({ prompt: "a benchmark" }),
});
const { task_id: taskId } = await created.json();
const mockUrl = `${mock.baseUrl}/api/gen/status/${taskId}`;
const constantUrl = `https://constant.test/api/gen/status/${taskId}`;

async function timed(url) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.json();
  const elapsed = performance.now() - started;
  if (response.status !== 200 || body.status !== "processing")
    throw new Error(`unexpected ${response.status}`);
  return elapsed;
}

const percentile = (values, p) =>
  values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const samples = { constant: [], mock: [] };
for (let call = 0; call < sized(500, 20); call++) {
  await timed(constantUrl);
  await timed(mockUrl);
}
for (let call = 0; call < calls; call++) {
  samples.constant.push(await timed(constantUrl));
  samples.mock.push(await timed(mockUrl));
}
server.close();

const summary = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [
    name,
    { medianMs: percentile(values, 0.5), p90Ms: percentile(values, 0.9), p99Ms: percentile(values, 0.99) },
  ]),
);
const ratio = summary.mock.medianMs / summary.constant.medianMs;
if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ calls, ...summary, ratio, target }, null, 2));
} else {
  const line = (name, { medianMs, p90Ms, p99Ms }) =>
    `${name.padEnd(34)} median ${medianMs.toFixed(3)} ms   p90 ${p90Ms.toFixed(3)} ms   p99 ${p99Ms.toFixed(3)} ms`;
  console.log(`status reads through msw, ${calls} calls each, alternating`);
  console.log(line("constant msw handler", summary.constant));
  console.log(line("@genvideo/msw (engine, memory store)", summary.mock));
  console.log(`ratio ${ratio.toFixed(2)}x (target at most ${target}x): ${verdict(ratio <= target)}`);
}
process.exitCode = ratio <= target || smoke ? 0 : 1;
