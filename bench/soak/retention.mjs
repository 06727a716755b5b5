// History passing its retention age, on SQLite and on PostgreSQL: the built server runs at 60x
// with the default retention (30 days) while three accounts create tasks (one in four with a
// callback, one in five failing, so refunded), then again with an hour of retention, which passes
// in a real minute. Before and after: the rows of every table retention deletes from, the
// database's size, and every account's balance beside the sum of its ledger; then what the owner
// of a deleted task is told (a second hour later its note goes too, so it is read at once).
//
//   node soak/retention.mjs [--tasks 400] [--only sqlite|postgres]
//
// PostgreSQL is skipped (and said so) on a machine without its server binaries.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { findPostgresBinaries, startPostgresCluster } from "@genvideo/server/testing/postgres";
import pg from "pg";
import { auth, serverCli, serverEnvironment, startProcess } from "../server/processes.mjs";
import { textTable } from "../text-table.mjs";

const { values: flags } = parseArgs({
  options: { tasks: { type: "string", default: "400" }, only: { type: "string" } },
});
const TASKS = Number(flags.tasks);
const TABLES = [
  "tasks",
  "task_requests",
  "ledger_entries",
  "webhook_events",
  "webhook_attempts",
  "retired_tasks",
];
const ACCOUNTS = [
  { name: "default", credits: 0 },
  { name: "studio", credits: 500 },
  { name: "agency", credits: 300 },
];

const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => response.writeHead(204).end());
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const callbackUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

/** What the database holds: rows per table, its size, and each account's balance and ledger sum. */
async function figures(query, size) {
  const rows = {};
  for (const table of TABLES) rows[table] = Number((await query(`select count(*) as n from ${table}`))[0].n);
  const balances = await query(
    `select name, credits, (select coalesce(sum(delta), 0) from ledger_entries where account_id = accounts.id) as ledger
       from accounts order by name`,
  );
  return {
    rows,
    size: await size(),
    balances: balances.map((row) => ({
      name: row.name,
      credits: Number(row.credits),
      ledger: Number(row.ledger),
    })),
  };
}

const until = async (what, check, timeoutMs = 300_000) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/**
 * One database's run. `database(dataDir)` gives its URL (none: SQLite in the data directory),
 * `query(sql)` (rows), `size()` ({ free pages, text }), `sizeLabel`, and on PostgreSQL
 * `vacuumed()`: the size once autovacuum has cleared the dead rows.
 */
async function run(name, database) {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-retention-"));
  const { databaseUrl, query, size, sizeLabel, vacuumed } = database(dataDir);
  const env = {
    ...serverEnvironment(dataDir),
    GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
    ...(databaseUrl ? { GENVIDEO_DATABASE_URL: databaseUrl } : {}),
  };
  const cli = (...args) =>
    execFileSync(process.execPath, [serverCli, ...args], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
  try {
    // 1. History made under the default retention (30 days): nothing is deleted.
    let server = startProcess([serverCli, "start"], env);
    let url = await server.url;
    const keys = { default: auth.authorization };
    for (const account of ACCOUNTS.slice(1)) {
      cli("accounts", "create", account.name, "--credits", String(account.credits));
      keys[account.name] =
        `Bearer ${cli("keys", "create", "--account", account.name).trim().split("\n").at(-1)}`;
    }
    cli("accounts", "credit", "default", "1000");
    const ids = [];
    for (let n = 0; n < TASKS; n++) {
      const account = ACCOUNTS[n % ACCOUNTS.length].name;
      const body = {
        prompt: n % 5 === 0 ? `retention ${n} [[fail:GENERATION_FAILED]]` : `retention ${n}`,
        ...(n % 5 === 0 ? { model_type: "gen-3" } : {}),
        ...(n % 4 === 0 ? { callback_url: callbackUrl } : {}),
      };
      const response = await fetch(`${url}/api/gen/generate`, {
        method: "POST",
        headers: { authorization: keys[account], "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.status !== 200)
        throw new Error(`create answered ${response.status}: ${await response.text()}`);
      ids.push({ id: (await response.json()).task_id, account });
    }
    await until("every task to end and every webhook to be delivered", async () => {
      const [open] = await query("select count(*) as n from tasks where state in ('queued', 'processing')");
      const [pending] = await query("select count(*) as n from webhook_events where state = 'pending'");
      return Number(open.n) === 0 && Number(pending.n) === 0;
    });
    await server.stop();
    const before = await figures(query, size);

    // 2. The same database with an hour of retention: a real minute at 60x.
    server = startProcess([serverCli, "start"], { ...env, GENVIDEO_HISTORY_RETENTION: "1h" });
    url = await server.url;
    await until("retention to delete every ended task", async () => {
      const [left] = await query("select count(*) as n from tasks");
      return Number(left.n) === 0 && (await size()).free === 0;
    });
    const gone = await fetch(`${url}/api/gen/status/${ids[0].id}`, {
      headers: { authorization: keys[ids[0].account] },
    });
    const answer = `${gone.status} ${JSON.stringify(await gone.json())}`;
    await server.stop();
    const after = await figures(query, size);

    console.log(`\n=== ${name}: ${TASKS} tasks on ${ACCOUNTS.length} accounts, retention 30d then 1h`);
    console.log(
      textTable([
        ["", "before", "after"],
        ...TABLES.map((table) => [table, String(before.rows[table]), String(after.rows[table])]),
        [sizeLabel, before.size.text, after.size.text],
        ...before.balances.map((account, index) => [
          `${account.name}: balance / ledger sum`,
          `${account.credits} / ${account.ledger}`,
          `${after.balances[index].credits} / ${after.balances[index].ledger}`,
        ]),
      ]),
    );
    console.log(`a deleted task's status: ${answer}`);
    if (vacuumed) console.log(`${sizeLabel} once autovacuum has run: ${await vacuumed()}`);
    const exact = after.balances.every(
      (account, index) =>
        account.credits === before.balances[index].credits && account.credits === account.ledger,
    );
    console.log(exact ? "balances unchanged, every ledger sums to its balance" : "BALANCES DIFFER");
    return exact && after.rows.tasks === 0;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The server's SQLite file in its data directory, read-only between the server's runs. */
function sqlite(dataDir) {
  const path = join(dataDir, "genvideo.db");
  const read = (fn) => {
    const database = new DatabaseSync(path, { readOnly: true });
    try {
      return fn(database);
    } finally {
      database.close();
    }
  };
  return {
    query: async (sql) => read((database) => database.prepare(sql).all()),
    size: async () =>
      read((database) => {
        const pages = Number(database.prepare("pragma page_count").get().page_count);
        const free = Number(database.prepare("pragma freelist_count").get().freelist_count);
        const kib = (statSync(path).size / 1024).toFixed(0);
        return { free, text: `${kib} KiB, ${pages} pages, ${free} free` };
      }),
    sizeLabel: "database file",
  };
}

/** A database on a throwaway cluster: tables retention deletes from, with their indexes and dead rows. */
function postgres(databaseUrl, client) {
  const query = async (sql) => (await client.query(sql)).rows;
  const tables = TABLES.map((table) => `'${table}'`).join(", ");
  const size = async () => {
    const [row] = await query(
      `select sum(pg_total_relation_size(relid)) as bytes, sum(n_dead_tup) as dead
         from pg_stat_user_tables where relname in (${tables})`,
    );
    return { free: 0, text: `${(Number(row.bytes) / 1024).toFixed(0)} KiB, ${row.dead} dead rows` };
  };
  return () => ({
    databaseUrl,
    query,
    size,
    sizeLabel: "tables and indexes",
    vacuumed: async () => {
      // Autovacuum takes a table once its dead rows pass 50 + 2% of its rows (migration 0013).
      await until("autovacuum to take every table past its threshold", async () => {
        const [row] = await query(
          `select count(*) as waiting from pg_stat_user_tables
            where relname in (${tables}) and n_dead_tup > 50 + 0.02 * n_live_tup`,
        );
        return Number(row.waiting) === 0;
      });
      return (await size()).text;
    },
  });
}

let ok = true;
try {
  if (flags.only !== "postgres") ok = (await run("SQLite", sqlite)) && ok;
  if (flags.only !== "sqlite") {
    if (!findPostgresBinaries())
      console.log("\n=== PostgreSQL: skipped, no PostgreSQL server binaries on this machine");
    else {
      const cluster = await startPostgresCluster();
      const databaseUrl = await cluster.createDatabase();
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        ok = (await run("PostgreSQL", postgres(databaseUrl, client))) && ok;
      } finally {
        await client.end();
        await cluster.stop();
      }
    }
  }
} finally {
  receiver.close();
}
process.exitCode = ok ? 0 : 1;
