/**
 * The server on PostgreSQL: roles split over processes, migrations when
 * several processes start at once, the shared service clock, and the CLI.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { createTask, getStatus, waitForTerminal } from "../support/api.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { FAST_SERVICE_ENV, type RunningServer, runCli, temporaryDataDir } from "../support/server-process.js";
import { serverSet } from "../support/use-server.js";

const servers = serverSet();

function start(url: string, env: Record<string, string> = {}, dataDir?: string): Promise<RunningServer> {
  return servers.start({
    dataDir,
    // Several processes start at once on a machine that may be busy.
    startTimeoutMs: 180_000,
    env: { ...FAST_SERVICE_ENV, GENVIDEO_DATABASE_URL: url, ...env },
  });
}

async function query<Row>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as Row[];
  } finally {
    await client.end();
  }
}

describePostgres("the server on PostgreSQL", () => {
  it("comes up in 4 processes started at once on an empty database, migrating once", {
    timeout: 240_000,
  }, async () => {
    const url = await freshDatabase();
    const servers = await Promise.all([1, 2, 3, 4].map(() => start(url)));
    for (const server of servers) expect((await server.fetch("/readyz")).status).toBe(200);
    const migrations = await query<{ name: string }>(
      url,
      "select name from genvideo_migration order by name",
    );
    expect(migrations.map((row) => row.name)).toEqual([...new Set(migrations.map((row) => row.name))]);
    expect(migrations.length).toBeGreaterThanOrEqual(5);
    // One default account, whoever bootstrapped it.
    expect(await query(url, "select name from accounts")).toEqual([{ name: "default" }]);
  });

  it("splits the work: an api process only answers, a worker process only works", async () => {
    const url = await freshDatabase();
    const dataDir = servers.removeLater(temporaryDataDir());
    // At 30x a render takes 2 s and the deadline is 20 s away: room for a worker starting on a busy machine.
    const slower = { GENVIDEO_TIME_SCALE: "30" };
    const api = await start(url, { ...slower, GENVIDEO_ROLE: "api" }, dataDir);
    const taskId = await createTask(api, { prompt: "a quiet harbour" });
    const before = await query<{ state: string }>(url, "select state from tasks");
    expect(before).toEqual([{ state: "queued" }]);
    expect(api.output()).not.toContain('"msg":"startup sweep"');

    const worker = await start(url, { ...slower, GENVIDEO_ROLE: "worker" }, dataDir);
    expect((await worker.fetch("/healthz")).status).toBe(200);
    expect((await worker.fetch("/readyz")).status).toBe(200);
    const refused = await worker.api(`/api/gen/status/${taskId}`);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await worker.fetch("/docs")).status).toBe(404);

    const done = await waitForTerminal(api, taskId, 30_000);
    expect(done.status).toBe("completed");
    // Nothing was claimed by the api process; the worker did it all.
    const video = new URL(done.video_url as string);
    expect((await api.fetch(video.pathname + video.search)).status).toBe(200);
    expect((await getStatus(api, taskId)).status).toBe("completed");
  });

  it("refuses a process whose GENVIDEO_TIME_SCALE differs from the running processes'", async () => {
    const url = await freshDatabase();
    await start(url);
    const refused = await runCli(["start"], temporaryDataDir(), {
      ...FAST_SERVICE_ENV,
      GENVIDEO_DATABASE_URL: url,
      GENVIDEO_TIME_SCALE: "60",
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      /^genvideo-server: GENVIDEO_TIME_SCALE is 60 but the processes running on this database use 600/,
    );
  });

  it("lets an admin command run without GENVIDEO_TIME_SCALE, then servers start at their own scale", {
    timeout: 120_000,
  }, async () => {
    const url = await freshDatabase();
    const dir = servers.removeLater(temporaryDataDir());
    // No scale set: a command that claimed one would hold the next 15 s of starts to scale 1.
    const created = await runCli(["accounts", "create", "acme", "--credits", "5"], dir, {
      GENVIDEO_DATABASE_URL: url,
    });
    expect(created.code).toBe(0);
    expect(await query(url, "select name from service_state where name like 'service_clock%'")).toEqual([]);
    const server = await start(url, { GENVIDEO_TIME_SCALE: "60" });
    expect((await server.fetch("/readyz")).status).toBe(200);
    // A command run beside it takes the cluster's scale, whatever its own, and leaves the clock alone.
    const heartbeat = () =>
      query<{ value: string }>(url, "select value from service_state where name = 'service_clock_epoch'");
    const epoch = await heartbeat();
    const listed = await runCli(["keys", "create", "--account", "acme"], dir, {
      GENVIDEO_DATABASE_URL: url,
      GENVIDEO_TIME_SCALE: "1",
    });
    expect(listed.code).toBe(0);
    expect(await heartbeat()).toEqual(epoch);
    expect(JSON.parse(epoch[0]!.value)).toMatchObject({ scale: 60 });
  });

  it("shares rate limits and idempotency keys between API processes", async () => {
    const url = await freshDatabase();
    const env = { GENVIDEO_ROLE: "api", GENVIDEO_RATE_LIMITS: "creates=4,reads=1000" };
    const [first, second] = await Promise.all([start(url, env), start(url, env)]);
    const create = (server: RunningServer, headers: Record<string, string> = {}) =>
      server.api("/api/gen/generate", { json: { prompt: "a lighthouse" }, headers });

    // One idempotency key sent to both processes at once: one task, one first response.
    const key = { "Idempotency-Key": "order-42" };
    const [a, b] = await Promise.all([create(first, key), create(second, key)]);
    const answered = [a, b].filter((response) => response.status === 200);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const response of [a, b]) expect([200, 409]).toContain(response.status);
    const ids = new Set(await Promise.all(answered.map(async (response) => (await response.json()).task_id)));
    expect(ids.size).toBe(1);
    const replay = await create(second, key);
    expect(replay.status).toBe(200);
    expect((await replay.json()).task_id).toBe([...ids][0]);
    expect(await query(url, "select count(*)::int as n from tasks")).toEqual([{ n: 1 }]);

    // 4 creates a minute per key for the whole cluster (each process alone would allow 4 more):
    // the three calls above spent 3, so of the next 5 at most one passes, plus a token per 15 s elapsed.
    const began = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await create(i % 2 === 0 ? first : second)).status);
    const refills = Math.floor((performance.now() - began) / 15_000) + 1;
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(1 + refills);
    expect(statuses).toContain(429);
    const refused = await create(first);
    if (refused.status === 429) expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("runs the admin commands against PostgreSQL", async () => {
    const url = await freshDatabase();
    const dir = servers.removeLater(temporaryDataDir());
    const env = { GENVIDEO_DATABASE_URL: url };
    expect((await runCli(["accounts", "create", "acme", "--credits", "50"], dir, env)).code).toBe(0);
    const key = await runCli(["keys", "create", "--account", "acme"], dir, env);
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/^gen_sk_/m);
    const list = await runCli(["accounts", "list", "--json"], dir, env);
    expect(JSON.parse(list.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "acme", credits: 50 })]),
    );
  });
});
