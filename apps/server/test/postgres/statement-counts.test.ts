// Round trips and transactions per API request and per worker step on
// PostgreSQL, counted at the driver (every `pg` query is one round trip): a
// change that adds one to a create, a status read, an authenticated request,
// a worker's claim or its completions fails here, whatever the machine's
// speed. Today's counts are in docs/operating.md#statements-per-request.
import { manualClock, type Renderer, type Store } from "@genvideo/engine";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { countingEngine, emptyFirstAccount, withTelemetry } from "../support/statement-counts.js";

const recorded: { statements: string[] | undefined } = { statements: undefined };
/** A create's one statement: the live key by its hash, the charge, its ledger entry and the task. */
const KEYED_CREATE = 'with caller as ( select "id", "account_id", "exp';
/** The key's own lookup, and a create for an account already known. */
const KEY_LOOKUP = 'select * from "api_keys" where "hash" = $1';
const ACCOUNT_CREATE = "with charged as ( update accounts set credits =";
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

/**
 * The server's PostgreSQL worker settings: sweeps for others' work every 250 ms, the outbox read at
 * most every 50 ms rather than on every tick, and a slot that frees filled at once while a backlog waits.
 */
const postgresWorker = {
  sweepIntervalMs: 250,
  generationMs: 1_000,
  refillSlots: true,
  webhooks: { claimIntervalMs: 50 },
};
/** The claim: one statement, its candidates locked in a CTE. */
const claim = 'with "locked" as (select "id", "created_at", "vi';
/** A batch of completions: one UPDATE, whatever the batch's size. */
const completion = 'update tasks set "completed_at" = $1, "lease_exp';
/** Completions carried by the claim that fills their slots: one statement for both. */
const completionsAndClaim = 'with ended as (update tasks set "completed_at" =';

type Count = Awaited<ReturnType<typeof countingEngine>>["count"];

/** Creates `tasks` tasks through the API; their ids, oldest first. */
async function createTasks(count: Count, tasks: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < tasks; index++) {
    const created = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
    ids.push((created.body as { task_id: string }).task_id);
  }
  return ids;
}

/**
 * An engine with the server's PostgreSQL worker settings at `concurrency` render slots, its
 * once-a-minute work done (the idempotency sweep, the keys' "last used" times), and `tasks` queued.
 */
async function workerWithBacklog(store: Store, renderer: Renderer, concurrency: number, tasks: number) {
  const clock = manualClock();
  const config = { ...postgresWorker, workerConcurrency: concurrency };
  const counting = await countingEngine(store, recorded, undefined, { renderer, config, clock });
  await counting.engine.tick();
  const taskIds = await createTasks(counting.count, tasks);
  await counting.engine.flushKeyUsage();
  return { ...counting, clock, config, taskIds };
}

/** `workerWithBacklog` whose renders end when the test calls their entries in `renders`, in the order they started. */
async function heldWorker(store: Store, concurrency: number, tasks: number) {
  const renders: (() => void)[] = [];
  const renderer = {
    render: (job: { taskId: string }) =>
      new Promise<{ videoKey: string }>((resolve) => {
        renders.push(() => resolve({ videoKey: `videos/${job.taskId}.mp4` }));
      }),
  };
  return { renders, ...(await workerWithBacklog(store, renderer, concurrency, tasks)) };
}

async function expectCompleted(count: Count, taskIds: string[]) {
  const states: unknown[] = [];
  for (const id of taskIds) states.push((await count("GET", `/api/gen/status/${id}`)).body);
  expect(states).toEqual(taskIds.map(() => expect.objectContaining({ status: "completed" })));
}

describePostgres("PostgreSQL round trips per request", () => {
  it("pins a status read, a create and an authenticated request", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { count } = await countingEngine(store, recorded);
      const created = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
      // The live key, the charge, its ledger entry and the task in one statement: no BEGIN.
      expect(created).toMatchObject({ status: 200, transactions: 0 });
      expect(created.statements).toEqual([KEYED_CREATE]);
      const taskId = (created.body as { task_id: string }).task_id;
      const status = await count("GET", `/api/gen/status/${taskId}`);
      // The key and the task together.
      expect(status).toMatchObject({ status: 200, transactions: 0 });
      expect(status.statements).toEqual([expect.stringMatching(/^select "api_keys"\."id" as "key_id"/)]);
      const account = await count("GET", "/api/gen/account");
      expect(account).toMatchObject({ status: 200, transactions: 0 });
      expect(account.statements).toEqual([KEY_LOOKUP, 'select * from "accounts" where "id" = $1']);
    } finally {
      await store.close();
    }
  });

  it("keeps the key's own lookup first where a create needs its account before the create", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { count } = await countingEngine(store, recorded);
      // An Idempotency-Key's claim is the account's: the key, the claim, then the create that completes it.
      const idempotent = await count(
        "POST",
        "/api/gen/generate",
        { prompt: "a lighthouse" },
        { "idempotency-key": "order-1" },
      );
      expect(idempotent).toMatchObject({ status: 200, transactions: 0 });
      expect(idempotent.statements).toEqual([
        KEY_LOOKUP,
        expect.stringMatching(/^insert into "idempotency_keys"/),
        ACCOUNT_CREATE,
      ]);
      // A callback URL is checked (DNS) only for a live key: the key, then the create.
      const callback = await count("POST", "/api/gen/generate", {
        prompt: "a lighthouse",
        callback_url: "https://93.184.215.14/hook",
      });
      expect(callback).toMatchObject({ status: 200, transactions: 0 });
      expect(callback.statements).toEqual([KEY_LOOKUP, ACCOUNT_CREATE]);
    } finally {
      await store.close();
    }
  });

  it("refuses a create without a live key in its one statement, and writes nothing", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const clock = manualClock();
      const { engine, count } = await countingEngine(store, recorded, undefined, { clock });
      const [account] = await engine.admin.listAccounts();
      const revoked = await engine.admin.createApiKey(account!.id);
      await engine.admin.revokeApiKey(revoked.apiKey.id);
      const expired = await engine.admin.createApiKey(account!.id, { expiresAt: clock.now() + 1_000 });
      clock.advance(1_000);
      // Well-formed (a key of the shape bootstrap accepts) but no key of ours.
      const unknown = "count_key_unknown_0123456789abcdefgh";
      const create = (key: string, body: unknown = { prompt: "a lighthouse" }) =>
        count("POST", "/api/gen/generate", body, { authorization: `Bearer ${key}` });
      for (const key of [revoked.key, expired.key, unknown]) {
        const refused = await create(key);
        expect(refused).toMatchObject({ status: 401, transactions: 0, statements: [KEYED_CREATE] });
        expect(refused.body).toEqual({ error: "Unauthorized", message: "Invalid API key" });
        // An invalid body with a key that is not live: the key's own lookup tells 401 from 400.
        const invalid = await create(key, { prompt: "" });
        expect(invalid).toMatchObject({ status: 401, transactions: 0, statements: [KEY_LOOKUP] });
      }
      // With a live key the same body is a 400, after the same lookup.
      const invalid = await count("POST", "/api/gen/generate", { prompt: "" });
      expect(invalid).toMatchObject({ status: 400, transactions: 0, statements: [KEY_LOOKUP] });
      expect(await store.transaction((tx) => tx.countTasks())).toBe(0);
      expect((await engine.admin.getAccount(account!.id))?.credits).toBe(account!.credits);
      expect((await engine.admin.listLedger(account!.id)).map((entry) => entry.reason)).not.toContain(
        "charge",
      );
    } finally {
      await store.close();
    }
  });

  it("refuses a create the balance cannot pay in the same one statement", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { count } = await countingEngine(store, recorded);
      const account = await emptyFirstAccount(store);
      const refused = await count("POST", "/api/gen/generate", { prompt: "a lighthouse" });
      expect(refused).toMatchObject({ status: 402, transactions: 0 });
      // The balance comes back with the refusal, for its message.
      expect(refused.statements).toEqual([KEYED_CREATE]);
      expect(refused.body).toMatchObject({
        code: "INSUFFICIENT_CREDITS",
        message: expect.stringMatching(/has 0\.$/),
      });
      expect(await store.transaction((tx) => tx.countTasks(account.id))).toBe(0);
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
      expect([created.statements.length, created.transactions]).toEqual([1, 0]);
      const status = await count("GET", `/api/gen/status/${taskId}`);
      expect([status.statements.length, status.transactions]).toEqual([1, 0]);
      const account = await count("GET", "/api/gen/account");
      expect([account.statements.length, account.transactions]).toEqual([2, 0]);
    } finally {
      await store.close();
    }
  });

  it("pins a worker's claim and the completion of renders that ended together", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { renders, engine, count, countWork, clock, config, taskIds } = await heldWorker(store, 10, 4);
      clock.advance(config.sweepIntervalMs);
      // A tick that sweeps and claims: expired leases (none, one read), the claim of all four in one
      // statement, the sweeps for others' due and overdue tasks, the webhook outbox's read.
      const claimed = await countWork(() => engine.tick());
      expect(renders).toHaveLength(4);
      expect(claimed).toEqual({
        statements: [
          'select "id" from "tasks" where "state" = \'proces',
          claim,
          'select "tasks".*, "task_requests"."request" as "',
          'select "tasks".*, "task_requests"."request" as "',
          'select "id" from "webhook_events" where "state"',
        ],
        transactions: 0,
      });
      // A tick between sweeps, slots free and nothing due: a claim (it finds none) and the outbox's read.
      clock.advance(config.sweepIntervalMs / 2);
      const between = await countWork(() => engine.tick());
      expect(between).toEqual({
        statements: [claim, 'select "id" from "webhook_events" where "state"'],
        transactions: 0,
      });
      // Back to back (a busy worker's next tick, within the outbox's interval): the claim alone.
      clock.advance(config.webhooks.claimIntervalMs / 2);
      const backToBack = await countWork(() => engine.tick());
      expect(backToBack).toEqual({
        statements: [claim],
        transactions: 0,
      });
      // Their generation time over, the four renders end together: UPDATEs without BEGIN complete
      // them (the first alone, as nothing waits yet; the three that ended meanwhile together). The
      // last claim came back short (the queue is empty): the freed slots claim nothing by themselves.
      clock.advance(config.generationMs);
      const completed = await countWork(async () => {
        for (const finish of renders) finish();
        await engine.idle();
      });
      expect(completed).toEqual({ statements: [completion, completion], transactions: 0 });
      // One prepared statement whatever the batch's size (1, then 3): the ids go in an array.
      expect(new Set(completed.texts).size).toBe(1);
      expect(await store.transaction((tx) => tx.countTasks())).toBe(4);
      await expectCompleted(count, taskIds);
    } finally {
      await store.close();
    }
  });

  it("pins the claim that carries the completions of the renders whose slots it fills", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      const { renders, engine, count, countWork, clock, config, taskIds } = await heldWorker(store, 4, 8);
      clock.advance(config.generationMs);
      await engine.tick();
      expect(renders).toHaveLength(4);
      // The four renders end together, their generation time over. Once two have, half the slots
      // are free and a claim for them is coming at the end of this turn of the event loop: it
      // carries the four completions and claims the next four tasks, one statement.
      const refilled = await countWork(async () => {
        for (const finish of renders.splice(0)) finish();
        while (renders.length < 4) await new Promise((resolve) => setImmediate(resolve));
      });
      expect(refilled).toEqual({ statements: [completionsAndClaim], transactions: 0 });
      // The same for the last four, whose claim finds the queue empty; its slots then wait for a tick.
      const drained = await countWork(async () => {
        for (const finish of renders.splice(0)) finish();
        await engine.idle();
      });
      expect(drained).toEqual({ statements: [completionsAndClaim], transactions: 0 });
      expect(renders).toHaveLength(0);
      await expectCompleted(count, taskIds);
    } finally {
      await store.close();
    }
  });

  it("pins the claim a freed slot makes for itself while a backlog waits", async () => {
    const { store } = await openPostgresStore(await freshDatabase());
    try {
      // One slot and a backlog of three: each task's render ends as soon as it starts.
      const renderer = {
        render: async (job: { taskId: string }) => ({ videoKey: `videos/${job.taskId}.mp4` }),
      };
      const { engine, count, countWork, clock, config, taskIds } = await workerWithBacklog(
        store,
        renderer,
        1,
        3,
      );
      clock.advance(config.generationMs);
      // The tick claims the first task (its claim took the one slot it asked for: more may wait);
      // each render that ends then claims the next task itself, without a tick, until a claim
      // comes back empty. Each task: one claim, and its completion, an UPDATE, a share of one, or
      // carried by the claim that fills its slot.
      const drained = await countWork(async () => {
        await engine.tick();
        await engine.idle();
      });
      const claims = drained.statements.filter((statement) => statement === claim);
      const carrying = drained.statements.filter((statement) => statement === completionsAndClaim);
      const completions = drained.statements.filter((statement) => statement === completion);
      expect(claims.length + carrying.length).toBe(3 + 1);
      expect(carrying.length + completions.length).toBeGreaterThanOrEqual(1);
      expect(carrying.length + completions.length).toBeLessThanOrEqual(3);
      // The tick's own reads besides, once: expired leases, others' due and overdue tasks, the outbox.
      expect(drained.statements.length - claims.length - carrying.length - completions.length).toBe(4);
      expect(drained.transactions).toBe(0);
      await expectCompleted(count, taskIds);
      // Charged once each: 2 000 credits, 3 tasks.
      expect((await count("GET", "/api/gen/account")).body).toMatchObject({ credits: 1997 });
    } finally {
      await store.close();
    }
  });
});
