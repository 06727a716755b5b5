// The engine's share of a request, without HTTP: the built server's host
// (SQLite on disk, fixture renderer, signed URLs, logger silenced) and
// `engine.app.fetch` called in a loop. Rounds alternate, medians reported.
//
//   node bench/server/in-process.mjs [requests per round] [rounds] [status,creates]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, startNodeHost } from "../../apps/server/dist/index.js";
import { API_KEY, auth } from "./processes.mjs";

const REQUESTS = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 5);
const SCENARIOS = (process.argv[4] ?? "status,creates").split(",");
const dataDir = mkdtempSync(join(tmpdir(), "genvideo-inproc-"));
const config = loadConfig({
  PORT: "0",
  GENVIDEO_DATA_DIR: dataDir,
  GENVIDEO_RATE_LIMITS: "off",
  GENVIDEO_RENDERER: "fixture",
  GENVIDEO_TIME_SCALE: "600",
});
const host = await startNodeHost(config, createLogger(process.env.GENVIDEO_LOG_LEVEL ?? "silent"));
try {
  await host.engine.admin.bootstrap({ apiKey: API_KEY });
  const [account] = await host.engine.admin.listAccounts();
  await host.engine.admin.creditAccount(account.id, 100_000_000);
  const post = () =>
    host.engine.app.fetch(
      new Request("http://127.0.0.1/api/gen/generate", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "a lighthouse at dusk, waves rolling in" }),
      }),
    );
  const ids = [];
  for (let index = 0; index < 200; index++) ids.push((await (await post()).json()).task_id);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  let next = 0;
  const get = () =>
    host.engine.app.fetch(
      new Request(`http://127.0.0.1/api/gen/status/${ids[next++ % ids.length]}`, { headers: auth }),
    );

  const time = async (send, concurrency) => {
    const started = performance.now();
    let left = REQUESTS;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) {
          const response = await send();
          if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
          await response.arrayBuffer();
        }
      }),
    );
    return ((performance.now() - started) * 1000) / REQUESTS;
  };
  const samples = Object.fromEntries(SCENARIOS.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    if (samples.status) samples.status.push(await time(get, 10));
    if (samples.creates) samples.creates.push(await time(post, 10));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const [name, values] of Object.entries(samples)) {
    console.log(
      `${name}: median ${median(values).toFixed(0)} µs/request (rounds: ${values.map((v) => v.toFixed(0)).join(", ")})`,
    );
  }
} finally {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
}
