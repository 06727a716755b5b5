// The built server in this process (SQLite on disk, fixture renders, logs silenced) with a
// funded default account and 200 tasks to read, for the benches that call `engine.app.fetch`
// in a loop instead of going through HTTP.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, startNodeServer } from "../../apps/server/dist/index.js";
import { API_KEY, auth, createBody } from "./processes.mjs";

/** `env`: settings on top of the bench's (metrics, say). `post()` creates a task, `get()` reads the next one. */
export async function startInProcessServer(env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-inproc-"));
  const config = loadConfig({
    PORT: "0",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_RATE_LIMITS: "off",
    GENVIDEO_RENDERER: "fixture",
    GENVIDEO_TIME_SCALE: "600",
    ...env,
  });
  const server = await startNodeServer(config, createLogger(process.env.GENVIDEO_LOG_LEVEL ?? "silent"));
  await server.engine.admin.bootstrap({ apiKey: API_KEY });
  const [account] = await server.engine.admin.listAccounts();
  await server.engine.admin.creditAccount(account.id, 100_000_000);
  const post = () =>
    server.engine.app.fetch(
      new Request("http://127.0.0.1/api/gen/generate", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: createBody,
      }),
    );
  const ids = [];
  for (let index = 0; index < 200; index++) ids.push((await (await post()).json()).task_id);
  let next = 0;
  const get = () =>
    server.engine.app.fetch(
      new Request(`http://127.0.0.1/api/gen/status/${ids[next++ % ids.length]}`, { headers: auth }),
    );
  return {
    server,
    post,
    get,
    async stop() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
