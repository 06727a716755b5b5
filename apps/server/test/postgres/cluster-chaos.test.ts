/**
 * The production shape on one PostgreSQL: 2 API processes and 3 worker
 * processes, 600 tasks of every scenario with callbacks to a loopback
 * receiver that fails some attempts. Meanwhile one worker is SIGKILLed in the
 * middle of generating tasks, and another is SIGSTOPped until every lease it
 * held has gone to the others, then SIGCONTed. What the contract promises is
 * checked at the end, through the API and in the database; never an order or
 * a timing.
 *
 * Time: service time runs 20x (the 10-minute deadline is 30 real seconds, a
 * generation 3 s, the retry spacing 1.5 s), leases last 3 real seconds, renders
 * are the fixture MP4. The deadline leaves room for a busy machine: a task
 * that should complete must still be claimed, rendered and ended within 30 s.
 *
 * What the frozen worker wrote is audited by PostgreSQL itself (see
 * write-audit.ts): each process names its connections after its lease owner id.
 */
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { credits, getStatus } from "../support/api.js";
import { waitForCount } from "../support/cluster-watch.js";
import { startFlakyReceiver } from "../support/flaky-receiver.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import {
  FAST_SERVICE_ENV,
  type RunningServer,
  removeDataDir,
  startServer,
  temporaryDataDir,
} from "../support/server-process.js";
import {
  databaseNow,
  installWriteAudit,
  terminalTransitions,
  writesTo,
  writesWithoutLease,
} from "../support/write-audit.js";

const TASKS = 600;
/** Concurrent clients creating tasks, spread over both API processes. */
const CLIENTS = 16;
const SCENARIOS = [
  { prompt: "a calm sea", status: "completed", code: null },
  { prompt: "a slow sunrise [[delay:90s]]", status: "completed", code: null },
  { prompt: "a refused scene [[fail:UNSAFE_CONTENT]]", status: "failed", code: "UNSAFE_CONTENT" },
  { prompt: "a broken render [[fail:GENERATION_FAILED]]", status: "failed", code: "GENERATION_FAILED" },
  { prompt: "an endless take [[timeout]]", status: "failed", code: "TIMEOUT" },
] as const;
type Scenario = (typeof SCENARIOS)[number];
/** Failures the service owes the credits back for (docs/api.md). */
const REFUNDED = new Set<string | null>(["GENERATION_FAILED", "TIMEOUT"]);
/** gen-3-fast, the default model. */
const COST = 1;

/**
 * The scenario of the `index`th task created: each scenario for a fifth of
 * the tasks, the [[timeout]] ones first. They take the whole deadline, so
 * creating them first keeps the run short.
 */
function scenarioOf(index: number): Scenario {
  const timeout = SCENARIOS.find((scenario) => scenario.code === "TIMEOUT")!;
  const others = SCENARIOS.filter((scenario) => scenario !== timeout);
  return index < TASKS / SCENARIOS.length ? timeout : others[index % others.length]!;
}

/** A task generating (not a scenario failure nor a [[timeout]]), held by `owner`. */
const generatingBy = (owner: string) =>
  `select count(*) as n from tasks where lease_owner = '${owner}' and state = 'processing'
      and scenario_fail is null and finish_at is not null`;

const processes: RunningServer[] = [];
const dataDir = temporaryDataDir();
afterAll(async () => {
  // A test that failed mid-freeze must not leave a stopped process behind: SIGTERM waits on it.
  for (const server of processes) if (server.child.exitCode === null) server.child.kill("SIGCONT");
  await Promise.all(processes.map((server) => server.stop()));
  removeDataDir(dataDir);
});

describePostgres("2 API and 3 worker processes on one PostgreSQL", () => {
  it("end every task once, as its scenario says, through a crash and a freeze", {
    timeout: 300_000,
  }, async () => {
    const url = await freshDatabase();
    const receiver = await startFlakyReceiver();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const start = async (role: "api" | "worker") => {
      const server = await startServer({
        dataDir,
        // Five processes start on a machine that may be busy.
        startTimeoutMs: 120_000,
        env: {
          ...FAST_SERVICE_ENV,
          GENVIDEO_TIME_SCALE: "20",
          GENVIDEO_LEASE: "3s",
          GENVIDEO_WORKERS: "8",
          GENVIDEO_DATABASE_URL: url,
          GENVIDEO_ROLE: role,
        },
      });
      processes.push(server);
      return server;
    };
    try {
      // All five start at once (one of them migrates); nothing a worker writes exists before the
      // first create, so the audit goes on the tables in time.
      const [firstApi, secondApi, ...workers] = await Promise.all([
        start("api"),
        start("api"),
        start("worker"),
        start("worker"),
        start("worker"),
      ]);
      await installWriteAudit(db);
      const apis = [firstApi!, secondApi!];
      const [killed, frozen, steady] = workers as [RunningServer, RunningServer, RunningServer];
      const [killedId, frozenId] = [workerIdOf(killed), workerIdOf(frozen)];
      const initialCredits = await credits(firstApi!);

      const created = new Map<string, Scenario>();
      let next = 0;
      const creating = Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let index = next++; index < TASKS; index = next++) {
            const scenario = scenarioOf(index);
            const response = await apis[client % apis.length]!.api("/api/gen/generate", {
              json: { prompt: `${scenario.prompt} #${index}`, callback_url: receiver.url },
            });
            const body = (await response.json()) as { task_id: string };
            expect(response.status, JSON.stringify(body)).toBe(200);
            created.set(body.task_id, scenario);
          }
        }),
      );
      // Incident 1: SIGKILL a worker in the middle of generating tasks.
      await waitForCount(db, generatingBy(killedId), (n) => n > 0, {
        timeoutMs: 60_000,
        what: "the worker to kill to hold a task in generation",
      });
      await killed.kill();

      // Incident 2: SIGSTOP a worker in the middle of generating tasks, until everything it held
      // (tasks, webhook claims) has been taken from it by the others; then let it run again.
      await waitForCount(db, generatingBy(frozenId), (n) => n > 0, {
        timeoutMs: 60_000,
        what: "the worker to freeze to hold a task in generation",
      });
      frozen.child.kill("SIGSTOP");
      const held = (
        await db.query<{ id: string }>(
          "select id from tasks where lease_owner = $1 union all select id from webhook_events where lease_owner = $1",
          [frozenId],
        )
      ).rows.map((row) => row.id);
      expect(held.length).toBeGreaterThan(0);
      await waitForCount(
        db,
        `select (select count(*) from tasks where lease_owner = '${frozenId}')
              + (select count(*) from webhook_events where lease_owner = '${frozenId}') as n`,
        (n) => n === 0,
        { timeoutMs: 60_000, what: "the frozen worker's leases to go to the others" },
      );
      const resumedAt = await databaseNow(db);
      frozen.child.kill("SIGCONT");

      await creating;
      expect(created.size).toBe(TASKS);
      await waitForCount(
        db,
        `select (select count(*) from tasks where state in ('queued', 'processing'))
              + (select count(*) from webhook_events where state = 'pending')
              + ${TASKS} - (select count(*) from webhook_events) as n`,
        (n) => n === 0,
        { timeoutMs: 150_000, what: "every task to end and every webhook to be delivered" },
      );
      // The survivors are running; the frozen one came back from its freeze and answers.
      for (const server of [...apis, frozen, steady])
        expect(server.child.exitCode, server.output().slice(-3000)).toBeNull();
      expect((await frozen.fetch("/healthz")).status).toBe(200);

      // Every task ended as its scenario says; none is lost and none appeared; each moved into a
      // terminal state exactly once. Both API processes tell the same for tasks of every scenario.
      const stored = await db.query<{ id: string; state: string; failure_code: string | null }>(
        "select id, state, failure_code from tasks",
      );
      const taskIds = [...created.keys()];
      expect(new Set(stored.rows.map((row) => row.id))).toEqual(new Set(taskIds));
      const unexpected = stored.rows
        .map((row) => ({ ...row, expected: created.get(row.id)! }))
        .filter(
          ({ state, failure_code, expected }) => state !== expected.status || failure_code !== expected.code,
        );
      // When one ended otherwise, who did what to it, and when, tells a slow machine from a lost lease.
      const trail = unexpected[0] ? await writesTo(db, unexpected[0].id) : [];
      expect(unexpected, JSON.stringify(trail, null, 1)).toEqual([]);
      const endings = await terminalTransitions(db);
      expect(endings).toHaveLength(TASKS);
      expect(new Set(endings.map((write) => write.row_id)).size).toBe(TASKS);
      for (const scenario of SCENARIOS) {
        const taskId = taskIds.find((id) => created.get(id) === scenario)!;
        for (const api of apis) {
          const status = await getStatus(api, taskId);
          expect(status).toMatchObject({ task_id: taskId, status: scenario.status });
          if (scenario.code) expect(status).toMatchObject({ message: scenario.code, video_url: null });
          else expect(status.video_url).toEqual(expect.any(String));
        }
      }

      // The ledger balances: one charge per task, one refund per TIMEOUT or GENERATION_FAILED task.
      const refundable = stored.rows.filter((row) => REFUNDED.has(row.failure_code)).map((row) => row.id);
      expect(refundable).toHaveLength((TASKS * 2) / SCENARIOS.length);
      const ledger = await db.query<{ task_id: string; reason: string; delta: number }>(
        "select task_id, reason, delta::int from ledger_entries where task_id is not null",
      );
      const charges = ledger.rows.filter((row) => row.reason === "charge");
      const refunds = ledger.rows.filter((row) => row.reason === "refund");
      expect(charges.map((row) => row.task_id).sort()).toEqual([...taskIds].sort());
      expect(refunds.map((row) => row.task_id).sort()).toEqual([...refundable].sort());
      expect(new Set([...charges, ...refunds].map((row) => Math.abs(row.delta)))).toEqual(new Set([COST]));
      expect(await credits(secondApi!)).toBe(initialCredits - TASKS * COST + refundable.length * COST);

      // Every task's event was delivered under one webhook-id, with that one body; its recorded
      // attempts end at its only success.
      const events = await db.query<{ id: string; task_id: string; state: string; payload: string }>(
        "select id, task_id, state, payload from webhook_events",
      );
      expect(events.rows.map((row) => row.task_id).sort()).toEqual([...taskIds].sort());
      const attempts = await db.query<{ event_id: string; attempt: number; status_code: number | null }>(
        "select event_id, attempt::int, status_code::int from webhook_attempts order by event_id, attempt",
      );
      const arrivedFor = groupBy(receiver.arrived, (request) => request.taskId);
      const attemptsOf = groupBy(attempts.rows, (row) => row.event_id);
      for (const event of events.rows) {
        expect(event.state, event.id).toBe("delivered");
        const recorded = attemptsOf.get(event.id) ?? [];
        const successes = recorded.filter((row) => row.status_code !== null && row.status_code < 300);
        expect(successes, event.id).toHaveLength(1);
        expect(recorded.at(-1), event.id).toBe(successes[0]);
        const arrived = arrivedFor.get(event.task_id) ?? [];
        expect(new Set(arrived.map((request) => request.webhookId)), event.task_id).toEqual(
          new Set([event.id]),
        );
        expect(new Set(arrived.map((request) => request.body)), event.id).toEqual(new Set([event.payload]));
        expect(
          arrived.some((request) => request.answered !== null && request.answered < 300),
          event.id,
        ).toBe(true);
      }
      // The receiver did refuse attempts, and the delivery log recorded refusals: retries happened.
      expect(receiver.arrived.some((request) => request.answered !== 204)).toBe(true);
      expect(attempts.rows.some((row) => row.status_code === 503)).toBe(true);
      // The frozen worker, once awake, wrote nothing on the strength of the leases it lost.
      expect(await writesWithoutLease(db, frozenId, resumedAt, held)).toEqual([]);
      // Not vacuous: the audit saw it write before the freeze.
      const before = await db.query(
        "select 1 from genvideo_audit where application_name = $1 and at < $2 limit 1",
        [frozenId, resumedAt],
      );
      expect(before.rows).toHaveLength(1);
    } finally {
      await db.end();
      await receiver.close();
    }
  });
});

/** The lease owner id a process logged when it started listening (also its application_name). */
function workerIdOf(server: RunningServer): string {
  const record = server.logRecords().find((entry) => entry.msg === "listening");
  expect(record?.workerId).toEqual(expect.any(String));
  return String(record!.workerId);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
