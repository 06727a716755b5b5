/**
 * One worker process is cut off by a network partition (packets dropped
 * silently: connects and queries hang, nothing is refused), first from
 * PostgreSQL only, then from everything, each time for twice its lease, while
 * its webhooks are in flight to a receiver that answers slowly; the other
 * worker and the API stay connected. The cut-off worker runs in a network
 * namespace of its own, joined to this machine by three veth pairs: one to
 * PostgreSQL, one to the receiver, and one the test probes its /readyz
 * through (an orchestrator's path, never cut).
 *
 * Checked: no webhook request leaves a worker without its claim (the receiver
 * asks the database who holds the event as each request arrives, and an
 * audit of the event's writes says when the claim passed on); every task ends
 * once, as its scenario says; the ledger balances; one webhook-id per task;
 * the cut-off worker's /readyz says "not ready" within two seconds during
 * each cut (by its own request log), /healthz stays up; it delivers again
 * within two leases of each healing (its pool is back within about one, then
 * a task is claimed and ended and its webhook sent), without a restart.
 *
 * Time: leases of 2 real seconds, service time at 20x (a [[delay:80s]] task
 * generates for 4 s, the deadline is 30 s away).
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { credits } from "../support/api.js";
import { waitForCount } from "../support/cluster-watch.js";
import {
  type Cleanups,
  endPool,
  networkNamespacesAllowed,
  partitionedDatabase,
  sleep,
  timed,
} from "../support/network-partition.js";
import { postgresUrl } from "../support/postgres.js";
import {
  FAST_SERVICE_ENV,
  type RunningServer,
  removeDataDir,
  temporaryDataDir,
} from "../support/server-process.js";
import { type SlowArrival, startSlowReceiver } from "../support/slow-receiver.js";
import { installWriteAudit, terminalTransitions } from "../support/write-audit.js";

const LEASE_MS = 2_000;
/** How long the receiver takes to answer: longer than a lease, so a sender's 8 connections stay busy. */
const ANSWER_AFTER_MS = 2_000;
/** How late after its claim passed on a request may be noted as arriving (see the check). */
const SLACK_MS = 250;
/** What /readyz may take to say "not ready" when the database does not answer. */
const READINESS_BOUND_MS = 2_000;
/**
 * From the healing to the cut-off worker's first delivery: "about one lease", with room for what
 * follows the pool's recovery (a task created, claimed and ended, its webhook claimed and sent) on
 * a busy machine.
 */
const DELIVERY_BOUND_MS = 2 * LEASE_MS;
/** What the test's own probe may observe on a busy machine (the old code never answered in 8 s). */
const PROBE_SANITY_MS = 5_000;
const SCENARIOS = [
  { prompt: "a quick scene [[delay:1s]]", status: "completed", code: null },
  { prompt: "a long take [[delay:80s]]", status: "completed", code: null },
  {
    prompt: "a refused scene [[fail:UNSAFE_CONTENT]] [[delay:1s]]",
    status: "failed",
    code: "UNSAFE_CONTENT",
  },
  {
    prompt: "a broken render [[fail:GENERATION_FAILED]] [[delay:1s]]",
    status: "failed",
    code: "GENERATION_FAILED",
  },
] as const;
type Scenario = (typeof SCENARIOS)[number];
const REFUNDED = new Set<string | null>(["GENERATION_FAILED"]);

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.skipIf(postgresUrl() === null || !networkNamespacesAllowed())(
  "a worker cut off by a network partition",
  () => {
    it("sends nothing without its claim, answers readiness, and comes back by itself", {
      timeout: 120_000,
    }, async () => {
      const { partition, url, ...servers } = await partitionedDatabase(["receiver"] as const, cleanups);
      const receiverLink = partition.links.receiver;
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      cleanups.push(() => db.end());
      const holders = new pg.Pool({ connectionString: url, max: 4 });
      cleanups.push(() => endPool(holders));
      const receiver = await startSlowReceiver({
        host: receiverLink.hostAddress,
        answerAfterMs: ANSWER_AFTER_MS,
        holderOf: async (id) =>
          (await holders.query("select lease_owner from webhook_events where id = $1", [id])).rows[0]
            ?.lease_owner ?? null,
      });
      cleanups.push(() => receiver.close());

      const dataDir = temporaryDataDir();
      cleanups.push(() => removeDataDir(dataDir));
      const env = {
        ...FAST_SERVICE_ENV,
        GENVIDEO_TIME_SCALE: "20",
        GENVIDEO_LEASE: `${LEASE_MS / 1000}s`,
        GENVIDEO_WORKERS: "8",
      };
      const start = (role: "api" | "worker", cutOff = false) =>
        servers.start({ dataDir, env: { ...env, GENVIDEO_ROLE: role }, cutOff });
      const api = await start("api");
      await installWriteAudit(db);
      const [cutOff, steady] = await Promise.all([start("worker", true), start("worker")]);
      const [cutOffId, steadyId] = [workerIdOf(cutOff), workerIdOf(steady)];
      const senderOf = new Map([
        [receiverLink.namespaceAddress, cutOffId],
        [receiverLink.hostAddress, steadyId],
      ]);
      const initialCredits = await credits(api);
      const created = new Map<string, Scenario>();
      const create = async (index: number) => {
        const scenario = SCENARIOS[index % SCENARIOS.length]!;
        const response = await api.api("/api/gen/generate", {
          json: { prompt: `${scenario.prompt} #${index}`, callback_url: receiver.url },
        });
        const body = (await response.json()) as { task_id: string };
        expect(response.status, JSON.stringify(body)).toBe(200);
        created.set(body.task_id, scenario);
      };

      // The cut-off worker alone takes a burst (the steady one is stopped meanwhile), so that
      // when the cut comes it holds tasks in generation and more webhooks than its 8 connections
      // to the receiver can carry at once: the rest wait in its HTTP client's queue.
      steady.child.kill("SIGSTOP");
      await Promise.all(Array.from({ length: 48 }, (_, index) => create(index)));
      await waitForCount(
        db,
        `select count(*) as n from webhook_events where lease_owner = '${cutOffId}' and state = 'pending'`,
        (n) => n >= 24,
        { timeoutMs: 30_000, what: "the worker to cut off to hold webhooks in flight" },
      );
      steady.child.kill("SIGCONT");

      // Work keeps arriving throughout, so either worker has something to deliver at any time.
      let trickling = true;
      const trickle = (async () => {
        for (let index = 48; trickling; index++) {
          await create(index);
          await new Promise((resolve) => setTimeout(resolve, 400));
        }
      })();

      const phases: { what: string; at: number }[] = [];
      const readiness: { cut: string; status: number | string; ms: number }[] = [];
      const recovery: { cut: string; ms: number | null }[] = [];
      const cutAndHeal = async (cut: string, links: ("database" | "receiver")[]) => {
        partition.cut(...links);
        const cutAt = Date.now();
        phases.push({ what: `cut ${cut}`, at: cutAt });
        // Once the worker's leases have run out, its readiness must say so at once; liveness always.
        await sleep(LEASE_MS);
        const ready = await timed(() => cutOff.fetch("/readyz", { signal: AbortSignal.timeout(8_000) }));
        readiness.push({ cut, status: ready.status, ms: ready.ms });
        const alive = await timed(() => cutOff.fetch("/healthz", { signal: AbortSignal.timeout(8_000) }));
        expect(alive.status, `${cut}: /healthz`).toBe(200);
        await sleep(Math.max(0, cutAt + 2 * LEASE_MS - Date.now()));
        // Until the cut-off worker delivers again, the steady one is paused: new work (the trickle's
        // tasks and their webhooks) then waits for the cut-off worker alone, so what is measured is
        // its recovery, not which of the two claims first.
        steady.child.kill("SIGSTOP");
        partition.heal(...links);
        const healedAt = Date.now();
        phases.push({ what: `healed ${cut}`, at: healedAt });
        // Work waiting the moment it can reach the database again: tasks that end as soon as claimed.
        const waiting = Promise.all(
          [0, 2, 3].map((scenario) => create(1_000 + phases.length * 4 + scenario)),
        );
        const deadline = healedAt + 20_000;
        while (
          Date.now() < deadline &&
          !receiver.arrived.some(
            (request) => request.from === receiverLink.namespaceAddress && request.at > healedAt,
          )
        )
          await sleep(25);
        const first = receiver.arrived.find(
          (request) => request.from === receiverLink.namespaceAddress && request.at > healedAt,
        );
        steady.child.kill("SIGCONT");
        await waiting;
        recovery.push({ cut, ms: first ? first.at - healedAt : null });
      };
      await cutAndHeal("database only", ["database"]);
      await cutAndHeal("everything", ["database", "receiver"]);
      trickling = false;
      await trickle;
      // The cuts are over: the rest is delivered at once.
      receiver.answerAfterMs = 0;

      await waitForCount(
        db,
        `select (select count(*) from tasks where state in ('queued', 'processing'))
            + (select count(*) from webhook_events where state = 'pending')
            + ${created.size} - (select count(*) from webhook_events) as n`,
        (n) => n === 0,
        { timeoutMs: 60_000, what: "every task to end and every webhook to be delivered" },
      );
      for (const server of [api, cutOff, steady])
        expect(server.child.exitCode, server.output().slice(-3000)).toBeNull();

      // No request left a worker without its claim on the event.
      // A request written in the last moments of its claim may arrive after the claim passed on (what
      // docs/operating.md says remains possible), and this process notes arrivals late on a busy
      // machine: one counts as sent without the claim when it arrived more than SLACK_MS after.
      const unclaimed: (SlowArrival & { sender: string | undefined; afterMs: number | null })[] = [];
      for (const request of receiver.arrived) {
        const sender = senderOf.get(request.from);
        if (request.holder === sender) continue;
        const passedOn = await db.query<{ at: Date }>(
          `select at from genvideo_audit where table_name = 'webhook_events' and row_id = $1
              and lease_before = $2 and lease_after is distinct from $2 and at <= $3 order by at desc limit 1`,
          [request.webhookId, sender, new Date(request.checkedAt)],
        );
        const afterMs = passedOn.rows[0] ? request.at - passedOn.rows[0].at.getTime() : null;
        if (afterMs === null || afterMs > SLACK_MS) unclaimed.push({ ...request, sender, afterMs });
      }
      expect.soft(unclaimed, "requests sent without the claim").toEqual([]);
      // The cut-off worker did deliver before the cut and after each healing (not vacuous).
      expect(
        receiver.arrived.filter((request) => request.from === receiverLink.namespaceAddress).length,
      ).toBeGreaterThan(8);
      // Readiness answered "not ready" within its bound during each cut; the worker came back within about a lease.
      // Readiness: the server's own account of each probe's time (its request log), and what the
      // probe saw.
      const served = cutOff
        .logRecords()
        .filter((record) => record.msg === "request" && record.path === "/readyz")
        .map((record) => ({ status: record.status, durationMs: Number(record.durationMs) }));
      expect.soft(served.map((record) => record.status)).toEqual(readiness.map(() => 503));
      for (const record of served)
        expect.soft(record.durationMs, "/readyz answered in").toBeLessThanOrEqual(READINESS_BOUND_MS);
      for (const probeResult of readiness) {
        expect.soft(probeResult.status, `${probeResult.cut}: /readyz`).toBe(503);
        expect
          .soft(probeResult.ms, `${probeResult.cut}: /readyz seen in`)
          .toBeLessThanOrEqual(PROBE_SANITY_MS);
      }
      for (const back of recovery)
        expect
          .soft(back.ms ?? Infinity, `${back.cut}: first delivery after healing`)
          .toBeLessThanOrEqual(DELIVERY_BOUND_MS);
      console.info(
        "partition test:",
        JSON.stringify({
          readiness,
          served,
          recovery,
          phases,
          unclaimed,
        }),
      );

      // Every task ended once, as its scenario says.
      const stored = await db.query<{ id: string; state: string; failure_code: string | null }>(
        "select id, state, failure_code from tasks",
      );
      expect(new Set(stored.rows.map((row) => row.id))).toEqual(new Set(created.keys()));
      for (const row of stored.rows) {
        const expected = created.get(row.id)!;
        expect({ id: row.id, state: row.state, code: row.failure_code }).toEqual({
          id: row.id,
          state: expected.status,
          code: expected.code,
        });
      }
      const endings = await terminalTransitions(db);
      expect(endings).toHaveLength(created.size);
      expect(new Set(endings.map((write) => write.row_id)).size).toBe(created.size);

      // The ledger balances: a charge per task, a refund per GENERATION_FAILED task, nothing twice.
      const refundable = stored.rows.filter((row) => REFUNDED.has(row.failure_code)).map((row) => row.id);
      const ledger = await db.query<{ task_id: string; reason: string; delta: number }>(
        "select task_id, reason, delta::int from ledger_entries where task_id is not null",
      );
      const taskIds = [...created.keys()].sort();
      expect(
        ledger.rows
          .filter((row) => row.reason === "charge")
          .map((row) => row.task_id)
          .sort(),
      ).toEqual(taskIds);
      expect(
        ledger.rows
          .filter((row) => row.reason === "refund")
          .map((row) => row.task_id)
          .sort(),
      ).toEqual([...refundable].sort());
      expect(await credits(api)).toBe(initialCredits - created.size + refundable.length);

      // One webhook-id per task, the id of its one event, which was delivered.
      const events = await db.query<{ id: string; task_id: string; state: string }>(
        "select id, task_id, state from webhook_events",
      );
      expect(events.rows.map((row) => row.task_id).sort()).toEqual(taskIds);
      const eventOf = new Map(events.rows.map((row) => [row.task_id, row]));
      for (const request of receiver.arrived) expect(request.webhookId).toBe(eventOf.get(request.taskId)?.id);
      for (const event of events.rows) expect(event.state, event.id).toBe("delivered");
    });
  },
);

/** The lease owner id a process logged when it started listening. */
function workerIdOf(server: RunningServer): string {
  const record = server.logRecords().find((entry) => entry.msg === "listening");
  expect(record?.workerId).toEqual(expect.any(String));
  return String(record!.workerId);
}
