/**
 * History retention on the real server (SQLite): tasks that ended longer ago than
 * GENVIDEO_HISTORY_RETENTION go, with their webhook events and attempts; every balance stays,
 * and every ledger still sums to its balance; the owner of a deleted task is told why it is gone.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, it } from "vitest";
import { createTask, waitForTerminal } from "./support/api.js";
import { answering, startReceiver, type TestReceiver } from "./support/receivers.js";
import { eventually, FAST_SERVICE_ENV } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

let receiver: TestReceiver | undefined;
// At 600x, an hour of retention is 6 real seconds: every task ends well inside it.
const server = useServer({
  env: { ...FAST_SERVICE_ENV, GENVIDEO_HISTORY_RETENTION: "1h" },
  afterStop: () => receiver?.close(),
});

interface Figures {
  rows: Record<string, number>;
  balances: { name: string; credits: number; ledger: number }[];
  autoVacuum: number;
  /** Pages of the database file and how many of them are free. */
  pages: number;
  freePages: number;
}

function figures(): Figures {
  const database = new DatabaseSync(join(server.dataDir, "genvideo.db"), { readOnly: true });
  try {
    const count = (table: string) => Number(database.prepare(`select count(*) as n from ${table}`).get()?.n);
    const tables = [
      "tasks",
      "task_requests",
      "ledger_entries",
      "webhook_events",
      "webhook_attempts",
      "retired_tasks",
    ];
    return {
      rows: Object.fromEntries(tables.map((table) => [table, count(table)])),
      balances: database
        .prepare(
          `select name, credits, (select coalesce(sum(delta), 0) from ledger_entries where account_id = accounts.id) as ledger
             from accounts order by name`,
        )
        .all()
        .map((row) => ({ name: String(row.name), credits: Number(row.credits), ledger: Number(row.ledger) })),
      autoVacuum: Number(database.prepare("pragma auto_vacuum").get()?.auto_vacuum),
      pages: Number(database.prepare("pragma page_count").get()?.page_count),
      freePages: Number(database.prepare("pragma freelist_count").get()?.freelist_count),
    };
  } finally {
    database.close();
  }
}

it("deletes ended tasks past retention, keeps balances exact and says why a task is gone", {
  timeout: 90_000,
}, async () => {
  receiver = await startReceiver(answering(204));
  const ids = [
    await createTask(server, { prompt: "a lighthouse", callback_url: `${receiver.origin}/hook` }),
    await createTask(server, { prompt: "a harbour" }),
    await createTask(server, { prompt: "a storm [[fail:GENERATION_FAILED]]", model_type: "gen-3" }),
    await createTask(server, { prompt: "a wreck [[fail:UNSAFE_CONTENT]]" }),
  ];
  // Long prompts, kept in the task rows: enough history to fill pages that retention then frees.
  for (let n = 0; n < 40; n++)
    ids.push(await createTask(server, { prompt: `${n} ${"a quiet sea ".repeat(150)}` }));
  for (const id of ids) await waitForTerminal(server, id, 30_000);
  await eventually(async () => (receiver!.requests.length > 0 ? true : undefined), 30_000, "the webhook");

  const before = figures();
  expect(before.rows).toMatchObject({ tasks: 44, webhook_events: 1, retired_tasks: 0 });
  for (const account of before.balances) expect(account.ledger).toBe(account.credits);

  const after = await eventually(
    async () => {
      const now = figures();
      // The batch's deletes commit first, then the free pages it left are given back.
      return now.rows.tasks === 0 && now.freePages === 0 ? now : undefined;
    },
    60_000,
    "retention to delete the ended tasks",
  );
  expect(after.rows).toEqual({
    tasks: 0,
    task_requests: 0,
    // The bootstrap's grant and the default account's carried-forward entry.
    ledger_entries: 2,
    webhook_events: 0,
    webhook_attempts: 0,
    retired_tasks: 44,
  });
  expect(after.balances).toEqual(before.balances);
  // A new database gives freed pages back to the file system (INCREMENTAL): none is left free.
  expect(after.autoVacuum).toBe(2);
  expect(after.freePages).toBe(0);
  expect(after.pages).toBeLessThan(before.pages);
  const logged = await eventually(
    async () => server.logRecords().find((record) => record.msg === "history retention deleted ended tasks"),
    10_000,
    "the retention's log line",
  );
  expect(logged).toMatchObject({
    tasks: 44,
    webhookEvents: 1,
    webhookAttempts: 1,
  });

  const gone = await server.api(`/api/gen/status/${ids[0]}`);
  expect(gone.status).toBe(404);
  const body = (await gone.json()) as { code: string; message: string };
  expect(body.code).toBe("NOT_FOUND");
  expect(body.message).toMatch(
    /^This task ended at \S+Z and has been deleted since: .*\(history retention\)\.$/,
  );
});
