// One graphile-worker process for the scale-out benchmark's baseline: a runner with
// a no-op task, its defaults otherwise (LISTEN/NOTIFY wake-ups, no local queue, no
// batched completions), as a user who installs it gets it. Prints "ready" once it
// listens for jobs; SIGTERM stops it gracefully.
import { Logger, run } from "graphile-worker";

const quiet = () => () => undefined;
const runner = await run({
  connectionString: process.env.DATABASE_URL,
  concurrency: Number(process.env.CONCURRENCY ?? 1),
  noHandleSignals: true,
  taskList: { noop: async () => undefined },
  logger: new Logger(quiet),
});
console.log("ready");
process.once("SIGTERM", () => {
  runner.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await runner.promise;
