/**
 * Every query whose cost could grow with history reads an index range, never
 * a table nor a whole index: the status read, the worker's claims, and the
 * dashboard's task, ledger, webhook and key lists and task page. Run on
 * SQLite (EXPLAIN QUERY PLAN) and on PostgreSQL (EXPLAIN, with sequential
 * scans priced out: a Seq Scan left in a plan means no index could serve it),
 * over a database with ended history, with statistics where the database
 * gathers them itself (PostgreSQL's autovacuum runs ANALYZE; the server never
 * runs it on SQLite).
 *
 * A plan is read as the set of its reads: `table(indexed columns)` for an
 * index range, with ` partial` after it for a partial index (it holds only
 * unfinished rows, as many as the queue, not as history: read whole or in
 * part), `table(columns) whole` for the whole of an index that is not partial,
 * and `table` for a table scan; plus whether it sorts.
 */
import type { LedgerEntry, Store, StoreTransaction } from "@genvideo/engine";
import { taskRecord } from "@genvideo/engine/testing";
import type { CompiledQuery, Kysely, KyselyPlugin, RootOperationNode } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardQueries } from "../../src/store/dashboard-queries.js";
import { createStoreTransaction } from "../../src/store/kysely-store.js";
import type { QueryContext } from "../../src/store/query-group.js";
import { CompiledQueries } from "../../src/store/sql-executor.js";
import type { Database } from "../../src/store/tables.js";

export interface Plan {
  reads: string[];
  /** The plan sorts rows (SQLite's temporary B-tree, PostgreSQL's Sort). */
  sorts: boolean;
}

export interface PlanDatabase {
  db: Kysely<Database>;
  store: Store;
  /** The flags the store's own transactions run with. */
  context: Pick<QueryContext, "rowLocks" | "dataModifyingCtes" | "loadRequest">;
  /** Gathers statistics where a database that has run a while has them. */
  analyze(): Promise<void>;
  plan(query: CompiledQuery): Promise<Plan>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
const ACCOUNTS = ["acc-1", "acc-2"];
/** Tasks per account that ended, each with its charge, one webhook event and two attempts. */
const HISTORY = 600;
/** Of which history retention deleted the oldest (their `retired_tasks` rows remain). */
const RETIRED = 200;

function taskId(account: number, n: number): string {
  return `${String(account).padStart(8, "0")}-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

async function seedHistory(store: Store): Promise<void> {
  await store.transaction(async (tx) => {
    for (const [a, accountId] of ACCOUNTS.entries()) {
      await tx.insertAccount({ id: accountId, name: accountId, credits: 10_000, createdAt: T0 });
      for (let k = 0; k < 20; k++)
        await tx.insertApiKey({
          id: `key-${a}-${k}`,
          accountId,
          hash: `hash-${a}-${k}`,
          prefix: "gen_sk_abcd",
          createdAt: T0 + k,
          revokedAt: k < 19 ? T0 + k + 1 : null,
          expiresAt: null,
          name: "",
          lastUsedAt: null,
        });
      for (let n = 0; n < HISTORY; n++) {
        const id = taskId(a, n);
        const at = T0 + n * 1000;
        await tx.insertTask(
          taskRecord(id, {
            accountId,
            state: "completed",
            createdAt: at,
            updatedAt: at + 500,
            progress: 100,
          }),
        );
        const charge: LedgerEntry = {
          id: `l-${id}`,
          accountId,
          taskId: id,
          delta: -1,
          reason: "charge",
          createdAt: at,
        };
        await tx.appendLedger(charge);
        await tx.insertWebhookEvent({
          id: `msg_${id}`,
          taskId: id,
          accountId,
          url: "https://example.com/hook",
          payload: "{}",
          state: "delivered",
          attemptCount: 2,
          nextAttemptAt: null,
          createdAt: at + 500,
          leaseOwner: null,
          leaseExpiresAt: null,
        });
        for (const attempt of [1, 2])
          await tx.insertWebhookAttempt({
            eventId: `msg_${id}`,
            attempt,
            startedAt: at + 500 * attempt,
            durationMs: 10,
            statusCode: attempt === 1 ? 500 : 200,
            error: null,
          });
      }
      // A few unfinished tasks: the queue a worker claims from.
      for (let n = 0; n < 3; n++)
        await tx.insertTask(
          taskRecord(taskId(a, HISTORY + n), { accountId, createdAt: T0 + HISTORY * 1000 + n }),
        );
    }
  });
  const endedBefore = T0 + RETIRED * 1000;
  while ((await store.transaction((tx) => tx.deleteEndedTasks(endedBefore, T0, 100))).tasks > 0);
}

/** The queries `work` sends through `db`, compiled with their parameters, unchanged otherwise. */
async function sentBy(
  db: Kysely<Database>,
  work: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const seen: { node: RootOperationNode; queryId: { queryId: string } }[] = [];
  const recorder: KyselyPlugin = {
    transformQuery: (args) => {
      seen.push(args);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await work(db.withPlugin(recorder));
  return seen.map(({ node, queryId }) => db.getExecutor().compileQuery(node, queryId));
}

/** The queries a store method sends, compiled as the store compiles them; none is run. */
async function storeSends(
  opened: PlanDatabase,
  work: (tx: StoreTransaction) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const sent: CompiledQuery[] = [];
  const tx = createStoreTransaction({
    db: opened.db,
    exec: {
      rows: async (query) => {
        sent.push(query);
        return [];
      },
      first: async (query) => {
        sent.push(query);
        return undefined;
      },
      changes: async (query) => {
        sent.push(query);
        return 0;
      },
    },
    compiled: new CompiledQueries(),
    ...opened.context,
  });
  await work(tx);
  return sent;
}

export function describeQueryPlans(name: string, open: () => Promise<PlanDatabase>): void {
  describe(`query plans on ${name}, with history`, () => {
    let opened: PlanDatabase;
    let queries: DashboardQueries;

    beforeAll(async () => {
      opened = await open();
      queries = new DashboardQueries(opened.db);
      await seedHistory(opened.store);
      await opened.analyze();
    }, 120_000);
    afterAll(() => opened?.close());

    const plansOf = async (sent: CompiledQuery[]) => {
      expect(sent.length).toBeGreaterThan(0);
      return Promise.all(sent.map((query) => opened.plan(query)));
    };
    const readsOf = (plans: Plan[]) => [...new Set(plans.flatMap((plan) => plan.reads))].sort();
    const dashboard = (work: (queries: DashboardQueries) => Promise<unknown>) =>
      sentBy(opened.db, (db) => work(new DashboardQueries(db)));
    const middle = { createdAt: T0 + (HISTORY / 2) * 1000, id: taskId(0, HISTORY / 2) };
    const someTask = taskId(0, RETIRED + 7);

    it("reads a status with its key on the key's hash and the task on its id", async () => {
      const plans = await plansOf(
        await storeSends(opened, (tx) => tx.getApiKeyAndTask("hash-0-19", someTask)),
      );
      // The answer shows no part of the request, so neither store reads one kept apart.
      expect(readsOf(plans)).toEqual(["api_keys(hash)", "tasks(id)"]);
    });

    it("claims queued tasks and due webhook events on partial indexes of unfinished work", async () => {
      const completed = { state: "completed" as const, completedAt: T0, leaseOwner: null };
      const plans = await plansOf(
        await storeSends(opened, async (tx) => {
          await tx.claimQueuedTasks("w", 10, T0, T0 + 1);
          // A claim that carries a worker's completions: those found on the tasks' ids.
          const ending = {
            tasks: [{ id: someTask, videoKey: `${someTask}.mp4` }],
            from: ["processing" as const],
            patch: completed,
          };
          await tx.transitionAndClaimTasks(ending, "w", 10, T0, T0 + 1);
          await tx.claimDueWebhookEvents("w", 10, T0, T0 + 1);
        }),
      );
      for (const read of readsOf(plans)) expect(read).toMatch(/\)( partial)?$/);
      // Which partial index of unfinished tasks is the planner's choice, by cost.
      expect(readsOf(plans)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^tasks\(.+\) partial$/),
          "webhook_events(next_attempt_at) partial",
        ]),
      );
    });

    it("pages the task list, the ledger and the deliveries on (account_id, created_at, id), unsorted", async () => {
      const cases: [string, (q: DashboardQueries) => Promise<unknown>][] = [
        ["tasks", (q) => q.listTasks("acc-1", {}, 50)],
        ["tasks", (q) => q.listTasks("acc-1", {}, 50, middle)],
        ["ledger_entries", (q) => q.listLedger("acc-1", 50)],
        ["ledger_entries", (q) => q.listLedger("acc-1", 50, middle)],
        ["webhook_events", (q) => q.listWebhookEvents("acc-1", 50, middle)],
        ["webhook_test_events", (q) => q.listTestEvents("acc-1", 50, middle)],
      ];
      for (const [table, work] of cases) {
        const [plan, ...more] = await plansOf(await dashboard(work));
        expect(more).toEqual([]);
        expect({ table, plan }).toEqual({
          table,
          plan: { reads: [`${table}(account_id,created_at,id)`], sorts: false },
        });
      }
    });

    it("shows a task's page from the task's own rows: its ledger entries, events and attempts", async () => {
      const plans = await plansOf([
        ...(await dashboard((q) => q.taskLedger("acc-1", someTask))),
        ...(await storeSends(opened, async (tx) => {
          await tx.getTask(someTask);
          await tx.listWebhookEvents(someTask);
          await tx.listWebhookAttempts(`msg_${someTask}`);
        })),
      ]);
      expect(readsOf(plans)).toEqual([
        "ledger_entries(task_id,reason) partial",
        ...(opened.context.loadRequest ? [] : ["task_requests(task_id)"]),
        "tasks(id)",
        "webhook_attempts(event_id,attempt)",
        "webhook_events(task_id)",
      ]);
    });

    it("lists the deliveries' attempts on their event ids, and an account's keys on its account", async () => {
      const plans = await plansOf([
        ...(await dashboard((q) => q.webhookAttempts([`msg_${someTask}`, `msg_${taskId(0, RETIRED + 8)}`]))),
        ...(await storeSends(opened, (tx) => tx.listApiKeys("acc-1"))),
      ]);
      expect(readsOf(plans)).toEqual(["api_keys(account_id)", "webhook_attempts(event_id,attempt)"]);
    });

    it("follows the live task list from its cursor and the tasks it watches by id", async () => {
      const plans = await plansOf(
        await dashboard(async (q) => {
          await q.tasksCreatedAfter("acc-1", {}, middle, 50, [someTask]);
          await q.tasksByIds("acc-1", [someTask, taskId(0, RETIRED + 8)]);
        }),
      );
      expect(plans.map((plan) => plan.reads)).toEqual([
        ["tasks(account_id,created_at,id)"],
        [expect.stringMatching(/^tasks\((id|account_id,created_at,id)\)$/)],
      ]);
      expect(plans[0]?.sorts).toBe(false);
    });

    it("finds history retention's batch among the oldest ended tasks, and its forgotten records by age", async () => {
      const plans = await plansOf(await storeSends(opened, (tx) => tx.deleteEndedTasks(T0 + 1000, T0, 100)));
      expect(readsOf(plans)).toEqual([
        "retired_tasks(ended_at)",
        "retired_tasks(id)",
        "tasks(updated_at,id) partial",
        // Whether a task has a delivery pending: on its events, or among the pending ones.
        expect.stringMatching(/^webhook_events\((task_id\)|next_attempt_at\) partial)$/),
      ]);
    });

    it("answers with the rows a plan was read for", async () => {
      // The plans above are of the queries that run: the same calls answer from the history.
      expect((await queries.listLedger("acc-1", 3)).map((entry) => entry.taskId)).toEqual([
        taskId(0, HISTORY - 1),
        taskId(0, HISTORY - 2),
        taskId(0, HISTORY - 3),
      ]);
      expect(await queries.taskLedger("acc-1", someTask)).toHaveLength(1);
    });
  });
}
