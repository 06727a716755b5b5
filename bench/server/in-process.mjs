// The engine's share of a request, without HTTP: the built server
// (SQLite on disk, fixture renderer, signed URLs, logger silenced) and
// `engine.app.fetch` called in a loop. Rounds alternate, medians reported.
//
//   node bench/server/in-process.mjs [requests per round] [rounds] [status,creates]
import { positionals, sized } from "../smoke.mjs";
import { startInProcessServer } from "./in-process-server.mjs";

const REQUESTS = Number(positionals[0] ?? sized(5000, 200));
const ROUNDS = Number(positionals[1] ?? sized(5, 1));
const WORKLOADS = (positionals[2] ?? "status,creates").split(",");
const { post, get, stop } = await startInProcessServer();
try {
  await new Promise((resolve) => setTimeout(resolve, 1500));
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
  const samples = Object.fromEntries(WORKLOADS.map((name) => [name, []]));
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
  await stop();
}
