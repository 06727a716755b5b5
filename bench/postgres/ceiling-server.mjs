// The PostgreSQL ceiling: bare Hono + @hono/node-server + pg on genvideo's own
// tables, doing the least honest work per request and nothing else (no
// validation, no logging, no idempotency, no rate limits, no wake-up hints).
//   status: one statement, the key by hash joined to the task by id and account
//   create: one statement, a CTE that checks the key, debits the account, and
//           inserts the task and a ledger row (autocommit: no BEGIN, no COMMIT)
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
/** A live key: not revoked, not expired at $2 (ms). */
const LIVE_KEY = "k.hash = $1 and k.revoked_at is null and (k.expires_at is null or k.expires_at > $2)";

/** The bearer key's SHA-256, or undefined without one. */
function keyHashOf(c) {
  const match = /^Bearer +(\S+)$/i.exec(c.req.header("authorization") ?? "");
  return match ? createHash("sha256").update(match[1]).digest("hex") : undefined;
}

const app = new Hono();
app.get("/api/gen/status/:task_id", async (c) => {
  const hash = keyHashOf(c);
  if (!hash) return c.json({ error: "Unauthorized" }, 401);
  // The key and the task in one statement: no row, no live key; a null task, not the caller's.
  const { rows } = await pool.query({
    name: "status",
    text: `select t.id, t.state, t.progress, t.created_at, t.updated_at from api_keys k
           left join tasks t on t.id = $3 and t.account_id = k.account_id where ${LIVE_KEY}`,
    values: [hash, Date.now(), c.req.param("task_id")],
  });
  if (rows.length === 0) return c.json({ error: "Unauthorized" }, 401);
  const task = rows[0];
  if (task.id === null) return c.json({ error: "Not Found" }, 404);
  return c.json({
    status: task.state,
    task_id: task.id,
    progress: Number(task.progress),
    created_at: new Date(Number(task.created_at)).toISOString(),
    updated_at: new Date(Number(task.updated_at)).toISOString(),
  });
});

app.post("/api/gen/generate", async (c) => {
  const hash = keyHashOf(c);
  if (!hash) return c.json({ error: "Unauthorized" }, 401);
  const body = await c.req.json();
  const now = Date.now();
  const taskId = randomUUID();
  // The key, the conditional debit, the task and its ledger row in one statement (autocommit).
  const { rows } = await pool.query({
    name: "create",
    text: `with caller as (select k.account_id from api_keys k where ${LIVE_KEY}),
           charged as (update accounts set credits = credits - 1
                       where id = (select account_id from caller) and credits >= 1 returning id),
           task as (insert into tasks (id, account_id, state, request, model_type, aspect_ratio, scenario, cost,
                      progress, created_at, updated_at, finish_at, deadline_at)
                    select $3, id, 'queued', $4, 'gen-3-fast', '16:9', '{}', 1, 0, $2, $2, $5::bigint, $6::bigint
                    from charged),
           ledger as (insert into ledger_entries (id, account_id, task_id, delta, reason, created_at)
                      select $7, id, $3, -1, 'charge', $2 from charged)
           select (select count(*) from caller)::int as caller, (select count(*) from charged)::int as charged`,
    values: [hash, now, taskId, JSON.stringify(body), now + 60_000, now + DEADLINE_MS, randomUUID()],
  });
  if (rows[0].caller === 0) return c.json({ error: "Unauthorized" }, 401);
  if (rows[0].charged === 0) return c.json({ error: "Payment Required" }, 402);
  return c.json({ success: true, message: "Task created", task_id: taskId });
});

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: "127.0.0.1" },
  (info) => {
    process.stdout.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${info.port}` })}\n`);
  },
);
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
