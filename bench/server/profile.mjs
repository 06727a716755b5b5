// Where the server's time goes under load: starts the built server with
// --cpu-prof, drives status reads or creates with autocannon, stops it and
// prints the functions with the most self time, and the files.
//
//   node bench/server/profile.mjs status|creates [seconds]

import { readdirSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { positionals, sized } from "../smoke.mjs";
import { summariseProfile } from "./cpu-profile-summary.mjs";
import { auth, createBody, startSeededServer } from "./processes.mjs";

const workload = positionals[0] ?? "status";
const seconds = Number(positionals[1] ?? sized(8, 0.5));

const profileDirOf = (dataDir) => join(dataDir, "profile");
const seeded = await startSeededServer({
  name: "profile",
  logLevel: process.env.GENVIDEO_LOG_LEVEL,
  nodeArgs: (dataDir) => ["--cpu-prof", `--cpu-prof-dir=${profileDirOf(dataDir)}`, "--cpu-prof-interval=200"],
});
const profileDir = profileDirOf(seeded.dataDir);
try {
  const { url, taskIds: ids } = seeded;
  const headers = { ...auth, "content-type": "application/json" };
  await new Promise((resolve) => setTimeout(resolve, 3000));
  let next = 0;
  const options =
    workload === "status"
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
    `${workload}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
  );
} finally {
  await seeded.child.stop();
}

const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
console.log(summariseProfile(join(profileDir, file), Number(process.env.ROWS ?? 40)));
seeded.remove();
