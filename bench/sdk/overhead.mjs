// Overhead of the SDK on its hot path: `client.getStatus(id)` versus a bare `fetch` + `JSON.parse`
// of the same URL with the same Authorization header, against a server on loopback, in one run.
// Calls alternate one by one (bare, SDK, bare, SDK, ...) so that drift in CPU speed, GC and the
// server hits both alike; the ratio compares median latencies.
//
// Two servers, both in a child process so the client's CPU cost is not hidden behind the server's:
//   --server stub       (default) a node:http server answering a fixed status body: the harshest
//                       case for the SDK, since the server does almost nothing.
//   --server reference  the reference server (apps/server, built: `pnpm --filter @genvideo/server
//                       build`), which authenticates and reads the task from SQLite like the service.
// Run after `pnpm --filter @genvideo/sdk build`:
//   node bench/sdk/overhead.mjs [--server stub|reference] [--calls 4000] [--target 1.15]
import { fork, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GenVideo } from "@genvideo/sdk";

// ky as the SDK resolves it, for two more lines: ky alone (no retries, no timeout), the floor that
// any client built on it pays, and ky with a retry policy and a timeout (still no SDK code), so the
// report shows what the SDK adds beyond its HTTP library.
const sdkRequire = createRequire(fileURLToPath(import.meta.resolve("@genvideo/sdk")));
const { default: ky } = await import(pathToFileURL(sdkRequire.resolve("ky")).href);

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : process.argv[index + 1];
};
const taskId = "4f1c2a9e-3b7d-4c8e-9a6f-1d2e3f4a5b6c";
const apiKey = "bench_key_0123456789abcdefghij";

if (process.argv.includes("--serve-stub")) {
  const { createServer } = await import("node:http");
  const body = JSON.stringify({ status: "processing", task_id: taskId, message: "Generating", progress: 42 });
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "x-request-id": "req_bench" });
    response.end(body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send(`http://127.0.0.1:${server.address().port}`));
} else {
  const serverKind = argument("server", "stub");
  const calls = Number(argument("calls", "4000"));
  const target = Number(argument("target", "1.15"));
  const { baseUrl, stop } = serverKind === "reference" ? await startReference() : await startStub();
  try {
    const client = new GenVideo({ apiKey, baseUrl });
    const id =
      serverKind === "reference"
        ? (await client.createTask({ prompt: "bench [[delay:1h]]" })).task_id
        : taskId;
    const url = `${baseUrl}/api/gen/status/${id}`;
    const sdk = () => client.getStatus(id);
    const bare = async () => {
      const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
      return JSON.parse(await response.text());
    };

    const kyAlone = async () => {
      const response = await ky(url, {
        headers: { authorization: `Bearer ${apiKey}` },
        retry: 0,
        timeout: false,
      });
      return JSON.parse(await response.text());
    };

    // ky with a retry policy and a timeout, as any client that retries and times out through ky
    // must configure it, and no SDK code: what the SDK's own layers add is the gap above this.
    const kyPolicy = ky.create({
      headers: { authorization: `Bearer ${apiKey}` },
      timeout: 60_000,
      retry: { limit: 2, methods: ["get"], statusCodes: [408, 409, 429, 500, 502, 503, 504] },
    });
    const kyWithPolicy = async () => JSON.parse(await (await kyPolicy(url)).text());

    const samples = { bare: [], sdk: [], ky: [], kyPolicy: [] };
    const timed = async (name, call) => {
      const started = process.hrtime.bigint();
      await call();
      samples[name].push(Number(process.hrtime.bigint() - started) / 1000);
    };
    for (let index = 0; index < 500; index++) {
      await bare();
      await sdk();
      await kyAlone();
      await kyWithPolicy();
    }
    for (let index = 0; index < calls; index++) {
      await timed("bare", bare);
      await timed("sdk", sdk);
      await timed("ky", kyAlone);
      await timed("kyPolicy", kyWithPolicy);
    }
    const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
    const bareMicroseconds = median(samples.bare);
    const sdkMicroseconds = median(samples.sdk);
    const ratio = sdkMicroseconds / bareMicroseconds;
    console.log(`server: ${serverKind}, ${calls} calls each, alternating`);
    console.log(`bare fetch + JSON.parse: ${bareMicroseconds.toFixed(1)} µs median`);
    const kyMicroseconds = median(samples.ky);
    console.log(`client.getStatus:        ${sdkMicroseconds.toFixed(1)} µs median`);
    console.log(
      `ky alone (floor):        ${kyMicroseconds.toFixed(1)} µs median, ${(kyMicroseconds / bareMicroseconds).toFixed(3)}x`,
    );
    const kyPolicyMicroseconds = median(samples.kyPolicy);
    console.log(
      `ky, retries + timeout:   ${kyPolicyMicroseconds.toFixed(1)} µs median, ${(kyPolicyMicroseconds / bareMicroseconds).toFixed(3)}x`,
    );
    console.log(`ratio: ${ratio.toFixed(3)}x (target at most ${target}x)`);
    if (ratio > target) process.exitCode = 1;
  } finally {
    await stop();
  }
}

async function startStub() {
  const child = fork(fileURLToPath(import.meta.url), ["--serve-stub"]);
  const baseUrl = await new Promise((resolve) => child.once("message", resolve));
  return { baseUrl, stop: async () => child.kill() };
}

async function startReference() {
  const cli = fileURLToPath(new URL("../../apps/server/dist/cli.js", import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-bench-"));
  const child = spawn(process.execPath, [cli, "start"], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH,
      PORT: "0",
      HOST: "127.0.0.1",
      GENVIDEO_DATA_DIR: dataDir,
      GENVIDEO_BOOTSTRAP_API_KEY: apiKey,
      GENVIDEO_RATE_LIMITS: "off",
      GENVIDEO_LOG_LEVEL: "error",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const baseUrl = await new Promise((resolve, reject) => {
    const check = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.setEncoding("utf8").on("data", check);
    child.stderr.setEncoding("utf8").on("data", check);
    child.once("exit", () => reject(new Error(`the reference server stopped:\n${output}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    baseUrl,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
