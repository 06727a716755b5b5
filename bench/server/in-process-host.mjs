// The built server's host in this process (SQLite on disk, fixture renders, logs silenced) with a
// funded default account and 200 tasks to read, for the benches that call `engine.app.fetch`
// in a loop instead of going through HTTP.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, loadConfig, startNodeHost } from "../../apps/server/dist/index.js";
import { API_KEY, auth, createBody } from "./processes.mjs";

/** `env`: settings on top of the bench's (metrics, say). `post()` creates a task, `get()` reads the next one. */
export async function startInProcessHost(env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-inproc-"));
  const config = loadConfig({
    PORT: "0",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_RATE_LIMITS: "off",
    GENVIDEO_RENDERER: "fixture",
    GENVIDEO_TIME_SCALE: "600",
    ...env,
  });
  const host = await startNodeHost(config, createLogger(process.env.GENVIDEO_LOG_LEVEL ?? "silent"));
  await host.engine.admin.bootstrap({ apiKey: API_KEY });
  const [account] = await host.engine.admin.listAccounts();
  await host.engine.admin.creditAccount(account.id, 100_000_000);
  const post = () =>
    host.engine.app.fetch(
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
    host.engine.app.fetch(
      new Request(`http://127.0.0.1/api/gen/status/${ids[next++ % ids.length]}`, { headers: auth }),
    );
  return {
    host,
    post,
    get,
    async stop() {
      await host.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
