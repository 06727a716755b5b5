// Overhead of the SDK on the hot path: `client.getStatus(id)` against a loopback server, versus a
// bare `fetch` + `JSON.parse` of the same URL with the same Authorization header, in one run.
// The server runs in a child process so that the client's CPU cost is not hidden behind the
// server's. Rounds alternate between the two so drift (GC, CPU boost, JIT) hits both alike.
// Run after `pnpm --filter @genvideo/sdk build`: node bench/sdk/overhead.mjs [--target 1.15]
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { GenVideo } from "@genvideo/sdk";

const taskId = "4f1c2a9e-3b7d-4c8e-9a6f-1d2e3f4a5b6c";
const apiKey = "gen_sk_bench";

if (process.argv[2] === "--serve") {
  const { createServer } = await import("node:http");
  const body = JSON.stringify({ status: "processing", task_id: taskId, message: "Generating", progress: 42 });
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "x-request-id": "req_bench" });
    response.end(body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send(server.address().port));
} else {
  const targetIndex = process.argv.indexOf("--target");
  const target = targetIndex === -1 ? 1.15 : Number(process.argv[targetIndex + 1]);
  const child = fork(fileURLToPath(import.meta.url), ["--serve"]);
  const port = await new Promise((resolve) => child.once("message", resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const url = `${baseUrl}/api/gen/status/${taskId}`;

  const client = new GenVideo({ apiKey, baseUrl });
  const sdk = () => client.getStatus(taskId);
  const bare = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    return JSON.parse(await response.text());
  };

  async function round(call, count) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < count; index++) await call();
    return Number(process.hrtime.bigint() - started) / count / 1000;
  }

  for (const call of [bare, sdk, bare, sdk]) await round(call, 500);
  const samples = { bare: [], sdk: [] };
  for (let index = 0; index < 20; index++) {
    samples.bare.push(await round(bare, 250));
    samples.sdk.push(await round(sdk, 250));
  }
  const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
  const bareMicroseconds = median(samples.bare);
  const sdkMicroseconds = median(samples.sdk);
  const ratio = sdkMicroseconds / bareMicroseconds;
  console.log(
    `bare fetch + JSON.parse: ${bareMicroseconds.toFixed(1)} µs per call (median of 20 rounds of 250)`,
  );
  console.log(`client.getStatus:        ${sdkMicroseconds.toFixed(1)} µs per call`);
  console.log(`ratio: ${ratio.toFixed(3)}x (target at most ${target}x)`);
  child.kill();
  if (ratio > target) process.exitCode = 1;
}
