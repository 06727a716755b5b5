// Where the server's time goes under load: starts the built server with
// --cpu-prof, drives status reads or creates with autocannon, stops it and
// prints the functions with the most self time, and the files.
//
//   node bench/server/profile.mjs status|creates [seconds]
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { summariseProfile } from "./cpu-profile-summary.mjs";
import {
  auth,
  createBody,
  seedStatusTargets,
  serverCli,
  serverEnvironment,
  startProcess,
} from "./processes.mjs";

const scenario = process.argv[2] ?? "status";
const seconds = Number(process.argv[3] ?? 8);

const dataDir = mkdtempSync(join(tmpdir(), "genvideo-profile-"));
const profileDir = join(dataDir, "profile");
const env = serverEnvironment(dataDir, { logLevel: process.env.GENVIDEO_LOG_LEVEL ?? "info" });
const server = startProcess(
  ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-interval=200", serverCli, "start"],
  env,
);
try {
  const url = await server.url;
  const ids = await seedStatusTargets({ url, serverCli, env, auth, body: createBody });
  const headers = { ...auth, "content-type": "application/json" };
  await new Promise((resolve) => setTimeout(resolve, 3000));
  let next = 0;
  const options =
    scenario === "status"
      ? {
          url,
          requests: [
            {
              method: "GET",
              headers: auth,
              setupRequest: (request) => ({
                ...request,
                path: `/api/gen/status/${ids[next++ % ids.length]}`,
              }),
            },
          ],
        }
      : { url: `${url}/api/gen/generate`, method: "POST", headers, body: createBody };
  const result = await autocannon({ connections: 50, duration: seconds, ...options });
  console.log(
    `${scenario}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
  );
} finally {
  await server.stop();
}

const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
console.log(summariseProfile(join(profileDir, file), Number(process.env.ROWS ?? 40)));
rmSync(dataDir, { recursive: true, force: true });
