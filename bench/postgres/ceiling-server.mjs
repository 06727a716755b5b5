// The PostgreSQL ceiling: bare Hono + @hono/node-server + pg on genvideo's own
// tables, doing the least honest work per request and nothing else (no
// validation, no logging, no idempotency, no rate limits, no wake-up hints).
//   status: the key by hash, then the task by id and account (two indexed SELECTs)
//   create: the key by hash, then one transaction that debits the account,
//           inserts the task and a ledger row
// What genvideo's API process is measured against in `bench/postgres/run.mjs`.
//
//   DATABASE_URL=postgres://... PORT=0 node bench/postgres/ceiling-server.mjs
import { createHash, randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pg from "pg";

// genvideo's pool size by default (GENVIDEO_PG_POOL_SIZE unset).
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
});
pool.on("error", () => undefined);
const DEADLINE_MS = 10 * 60_000;

/** The live key's account for the request's bearer key (one SELECT), or undefined. */
async function accountOf(c) {
  const match = /^Bearer +(\S+)$/i.exec(c.req.header("authorization") ?? "");
  if (!match) return undefined;
  const hash = createHash("sha256").update(match[1]).digest("hex");
  const { rows } = await pool.query({
    name: "key",
    text: "select account_id from api_keys where hash = $1 and revoked_at is null and (expires_at is null or expires_at > $2)",
    values: [hash, Date.now()],
  });
  return rows[0]?.account_id;
}

const app = new Hono();
app.get("/api/gen/status/:task_id", async (c) => {
  const accountId = await accountOf(c);
  if (!accountId) return c.json({ error: "Unauthorized" }, 401);
  const { rows } = await pool.query({
    name: "task",
    text: "select id, state, progress, created_at, updated_at from tasks where id = $1 and account_id = $2",
    values: [c.req.param("task_id"), accountId],
  });
  const task = rows[0];
  if (!task) return c.json({ error: "Not Found" }, 404);
  return c.json({
    status: task.state,
    task_id: task.id,
    progress: Number(task.progress),
    created_at: new Date(Number(task.created_at)).toISOString(),
    updated_at: new Date(Number(task.updated_at)).toISOString(),
  });
});

app.post("/api/gen/generate", async (c) => {
  const accountId = await accountOf(c);
  if (!accountId) return c.json({ error: "Unauthorized" }, 401);
  const body = await c.req.json();
  const now = Date.now();
  const taskId = randomUUID();
  const client = await pool.connect();
  try {
    await client.query("begin");
    const charged = await client.query({
      name: "charge",
      text: "update accounts set credits = credits - 1 where id = $1 and credits >= 1",
      values: [accountId],
    });
    if (charged.rowCount !== 1) {
      await client.query("rollback");
      return c.json({ error: "Payment Required" }, 402);
    }
    await client.query({
      name: "task",
      text: `insert into tasks (id, account_id, state, request, model_type, aspect_ratio, scenario, cost, progress,
               created_at, updated_at, finish_at, deadline_at)
             values ($1, $2, 'queued', $3, 'gen-3-fast', '16:9', '{}', 1, 0, $4, $4, $5, $6)`,
      values: [taskId, accountId, JSON.stringify(body), now, now + 60_000, now + DEADLINE_MS],
    });
    await client.query({
      name: "ledger",
      text: "insert into ledger_entries (id, account_id, task_id, delta, reason, created_at) values ($1, $2, $3, -1, 'charge', $4)",
      values: [randomUUID(), accountId, taskId, now],
    });
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return c.json({ success: true, message: "Task created", task_id: taskId });
});

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: "127.0.0.1" },
  (info) => {
    process.stdout.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${info.port}` })}\n`);
  },
);
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
