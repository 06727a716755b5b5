// SQL statements and transactions per API request on SQLite, counted at the
// driver: a change that adds one to a create, a status read or an
// authenticated request fails here, whatever the machine's speed. Today's
// counts (and what they were) are in docs/operating.md#statements-per-request.
import { StatementSync } from "node:sqlite";
import type { Store } from "@genvideo/engine";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { countingEngine, emptyFirstAccount, withTelemetry } from "../../test/support/statement-counts.js";
import { openSqliteStore } from "./sqlite-store.js";

const recorded: { statements: string[] | undefined } = { statements: undefined };
const methods = ["run", "get", "all", "iterate"] as const;
const originals = methods.map((method) => [method, StatementSync.prototype[method]] as const);

beforeAll(() => {
  for (const [method, original] of originals) {
    // Every statement node:sqlite runs goes through one of these four.
    (StatementSync.prototype as unknown as Record<string, unknown>)[method] = function (
      this: StatementSync,
      ...parameters: unknown[]
    ) {
      recorded.statements?.push(this.sourceSQL);
      return (original as (...values: unknown[]) => unknown).apply(this, parameters);
    };
  }
});
afterAll(() => {
  for (const [method, original] of originals)
    (StatementSync.prototype as unknown as Record<string, unknown>)[method] = original;
});

describe("SQLite statements per request", () => {
  let store: Store;
  let count: Awaited<ReturnType<typeof countingEngine>>["count"];
  beforeEach(async () => {
    store = (await openSqliteStore(":memory:")).store;
    count = (await countingEngine(store, recorded)).count;
  });
  afterEach(() => store.close());

  // A request alone pays its transaction's BEGIN and COMMIT; under load the transactions of one
  // turn of the event loop share them (group commit, up to 32), reads included: one read
  // transaction for many reads cost less than a read transaction per statement in autocommit.
  it("authenticates and reads a task's status in one statement, in one transaction", async () => {
    const created = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
    const taskId = (created.body as { task_id: string }).task_id;
    const status = await count("GET", `/api/gen/status/${taskId}`);
    expect(status).toMatchObject({ status: 200, transactions: 1 });
    expect(status.statements).toEqual([
      "begin",
      expect.stringMatching(/^select "api_keys"\."id" as "key_id"/),
      "commit",
    ]);
    // Another account's or an unknown task: the same one statement, then, on this 404 path only,
    // a read of whether history retention deleted it (its 404 then says so).
    const unknown = await count("GET", `/api/gen/status/${crypto.randomUUID()}`);
    expect(unknown).toMatchObject({ status: 404, transactions: 2 });
    expect(unknown.statements).toEqual([
      "begin",
      expect.stringMatching(/^select "api_keys"\."id" as "key_id"/),
      "commit",
      "begin",
      'select * from "retired_tasks" where "id" = ?',
      "commit",
    ]);
  });

  it("creates a task in one transaction: the key, the charge, its ledger entry and the task", async () => {
    const created = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
    expect(created).toMatchObject({ status: 200, transactions: 1 });
    expect(created.statements).toEqual([
      "begin",
      'select * from "api_keys" where "hash" = ?',
      'update "accounts" set "credits" = credits + ? wh',
      'insert into "ledger_entries" ("id", "account_id"',
      'insert into "tasks" ("account_id", "aspect_ratio',
      "commit",
    ]);
  });

  it("refuses an unknown key and a short balance in that one transaction, writing nothing", async () => {
    const unknown = await count(
      "POST",
      "/api/gen/generate",
      { prompt: "a lighthouse" },
      { authorization: "Bearer gen_sk_unknownunknownunknownunknown00" },
    );
    expect(unknown).toMatchObject({ status: 401, transactions: 1 });
    expect(unknown.statements).toEqual(["begin", 'select * from "api_keys" where "hash" = ?', "commit"]);
    const account = await emptyFirstAccount(store);
    const refused = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
    expect(refused).toMatchObject({ status: 402, transactions: 1 });
    // The debit that found the balance short, the account's check that it exists, its balance for the 402.
    expect(refused.statements).toEqual([
      "begin",
      'select * from "api_keys" where "hash" = ?',
      'update "accounts" set "credits" = credits + ? wh',
      'select * from "accounts" where "id" = ?',
      'select * from "accounts" where "id" = ?',
      "commit",
    ]);
    expect(await store.transaction((tx) => tx.countTasks(account.id))).toBe(0);
  });

  it("authenticates any other request with one statement before its route's", async () => {
    const account = await count("GET", "/api/gen/account");
    expect(account).toMatchObject({ status: 200, transactions: 2 });
    expect(account.statements).toEqual([
      "begin",
      'select * from "api_keys" where "hash" = ?',
      "commit",
      "begin",
      'select * from "accounts" where "id" = ?',
      "commit",
    ]);
  });

  it("counts the same with the server's metrics and tracing around the engine", async () => {
    const telemetry = withTelemetry(store);
    const traced = (await countingEngine(telemetry.store, recorded, telemetry.observer)).count;
    const created = await traced("POST", "/api/gen/generate", { prompt: "a lighthouse" });
    const taskId = (created.body as { task_id: string }).task_id;
    expect([created.statements.length, created.transactions]).toEqual([6, 1]);
    const status = await traced("GET", `/api/gen/status/${taskId}`);
    expect([status.statements.length, status.transactions]).toEqual([3, 1]);
    const account = await traced("GET", "/api/gen/account");
    expect([account.statements.length, account.transactions]).toEqual([6, 2]);
  });
});
