// The dashboard's task list with 100 000 tasks stored: the first page and the
// request for the next one (its "Older tasks" link, a keyset cursor), one at a
// time from a signed-in session, p50 and p99 in ms. The built server, SQLite.
// There is no target: the figures are reported, not judged. `--smoke`: 1000 tasks
// and 20 requests each, that it works.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auth, serverCli, serverEnvironment, startProcess } from "../server/processes.mjs";
import { seedTasks } from "../server/seed-tasks.mjs";
import { sized } from "../smoke.mjs";
import { textTable } from "../text-table.mjs";

const SEEDED_TASKS = sized(100_000, 1000);
const WARMUP = sized(50, 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? sized(500, 20));

const dataDir = mkdtempSync(join(tmpdir(), "genvideo-bench-dashboard-"));
const env = serverEnvironment(dataDir);
const dbPath = join(dataDir, "genvideo.db");

function cli(...args) {
  return execFileSync(process.execPath, [serverCli, ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function timed(url, cookie) {
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return { ms, body };
}

async function measure(url, cookie) {
  for (let i = 0; i < WARMUP; i++) await timed(url, cookie);
  const samples = [];
  for (let i = 0; i < SAMPLES; i++) samples.push((await timed(url, cookie)).ms);
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

let server = startProcess([serverCli, "start"], env);
try {
  let url = await server.url;
  const { account_id: accountId } = await (await fetch(`${url}/api/gen/account`, { headers: auth })).json();
  await server.stop();
  console.error(`  seeding ${SEEDED_TASKS} tasks…`);
  seedTasks(dbPath, accountId, SEEDED_TASKS);
  server = startProcess([serverCli, "start"], env);
  url = await server.url;

  const link = new URL(cli("dashboard", "link").trim().split("\n").at(-1));
  const signIn = await fetch(`${url}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: link.searchParams.get("token") }),
  });
  const cookie = /^[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")?.[0];
  if (!cookie) throw new Error(`sign-in failed: ${signIn.status}`);

  const first = `${url}/dashboard/tasks`;
  const { body } = await timed(first, cookie);
  const next = /href="(\/dashboard\/tasks\?after=[^"]+)" rel="next"/.exec(body)?.[1];
  if (!next) throw new Error("the first page has no next-page link");
  const rows = (body.match(/<tr id="task-/g) ?? []).length;

  // Once around before measuring: the server's startup work (sweeps) is over, caches are warm.
  await measure(first, cookie);
  const firstPage = await measure(first, cookie);
  const nextPage = await measure(`${url}${next.replaceAll("&amp;", "&")}`, cookie);
  const filtered = await measure(`${first}?state=failed&code=UNSAFE_CONTENT`, cookie);

  const fmt = (ms) => ms.toFixed(2);
  console.log(
    `\nDashboard task list, ${SEEDED_TASKS} tasks stored (SQLite), ${rows} rows a page, ${SAMPLES} sequential requests each:\n`,
  );
  console.log(
    textTable([
      ["request", "p50 ms", "p99 ms"],
      ["GET /dashboard/tasks (first page)", fmt(firstPage.p50), fmt(firstPage.p99)],
      ["GET /dashboard/tasks?after=… (next page)", fmt(nextPage.p50), fmt(nextPage.p99)],
      ["GET /dashboard/tasks?state=failed&code=UNSAFE_CONTENT", fmt(filtered.p50), fmt(filtered.p99)],
    ]),
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
