// Round trips and transactions per API request on PostgreSQL, counted at the
// driver (every `pg` query is one round trip): a change that adds one to a
// create, a status read or an authenticated request fails here, whatever the
// machine's speed. Today's counts are in docs/operating.md#statements-per-request.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { countingEngine, withTelemetry } from "../support/statement-counts.js";

const recorded: { statements: string[] | undefined } = { statements: undefined };
const query = pg.Client.prototype.query;

beforeAll(() => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config] = args as [string | { text: string }];
    recorded.statements?.push(typeof config === "string" ? config : config.text);
    return (query as (...values: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
afterAll(() => {
  pg.Client.prototype.query = query;
});

describePostgres("PostgreSQL round trips per request", () => {
  it("pins a status read, a create and an authenticated request", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { count } = await countingEngine(store, recorded);
      const created = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
      // The key, then the charge, its ledger entry and the task in one statement: no BEGIN.
      expect(created).toMatchObject({ status: 200, transactions: 0 });
      expect(created.statements).toEqual([
        'select * from "api_keys" where "hash" = $1',
        "with charged as ( update accounts set credits =",
      ]);
      const taskId = (created.body as { task_id: string }).task_id;
      const status = await count("GET", `/api/gen/status/${taskId}`);
      // The key and the task together.
      expect(status).toMatchObject({ status: 200, transactions: 0 });
      expect(status.statements).toEqual([expect.stringMatching(/^select "api_keys"\."id" as "key_id"/)]);
      const account = await count("GET", "/api/gen/account");
      expect(account).toMatchObject({ status: 200, transactions: 0 });
      expect(account.statements).toEqual([
        'select * from "api_keys" where "hash" = $1',
        'select * from "accounts" where "id" = $1',
      ]);
    } finally {
      await store.close();
    }
  });

  it("refuses a create the balance cannot pay in the same one statement, then reads the balance", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { engine, count } = await countingEngine(store, recorded);
      const [account] = await engine.admin.listAccounts();
      await store.transaction((tx) =>
        tx.appendLedger({
          id: "drain",
          accountId: account!.id,
          taskId: null,
          delta: -account!.credits,
          reason: "charge",
          createdAt: 0,
        }),
      );
      const refused = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
      expect(refused).toMatchObject({ status: 402, transactions: 0 });
      expect(refused.statements).toHaveLength(3);
      expect(await store.transaction((tx) => tx.countTasks(account!.id))).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("counts the same with the server's metrics and tracing around the engine", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const telemetry = withTelemetry(store);
      const { count } = await countingEngine(telemetry.store, recorded, telemetry.observer);
      const created = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
      const taskId = (created.body as { task_id: string }).task_id;
      expect([created.statements.length, created.transactions]).toEqual([2, 0]);
      const status = await count("GET", `/api/gen/status/${taskId}`);
      expect([status.statements.length, status.transactions]).toEqual([1, 0]);
      const account = await count("GET", "/api/gen/account");
      expect([account.statements.length, account.transactions]).toEqual([2, 0]);
    } finally {
      await store.close();
    }
  });
});
