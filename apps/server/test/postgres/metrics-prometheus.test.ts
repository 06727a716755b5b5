/**
 * A cluster as operators watch it: a real Prometheus server (Debian's package) scrapes one api
 * and two worker processes on PostgreSQL, with the shipped recording rules loaded, while a
 * workload goes through every outcome; the series are read back through Prometheus's HTTP API.
 */
import { afterAll, expect, it } from "vitest";
import { freeLoopbackPort } from "../../src/testing/loopback.js";
import { createTask, waitForTerminal } from "../support/api.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { describeWith, PROMETHEUS } from "../support/prometheus-binaries.js";
import { type PrometheusServer, startPrometheus } from "../support/prometheus-server.js";
import { answering, startReceiver, type TestReceiver } from "../support/receivers.js";
import { eventually, temporaryDataDir } from "../support/server-process.js";
import { serverSet } from "../support/use-server.js";

const cleanups: (() => Promise<void> | void)[] = [];
const servers = serverSet({
  after: afterAll,
  afterStop: async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  },
});

describePostgres("metrics of a cluster on PostgreSQL", () => {
  describeWith(PROMETHEUS, "scraped by Prometheus", () => {
    it("shows the queue, every outcome, the workers and bounded labels", { timeout: 240_000 }, async () => {
      const url = await freshDatabase();
      const dataDir = servers.removeLater(temporaryDataDir());
      const receiver: TestReceiver = await startReceiver((request, response) =>
        answering(request.url === "/ok" ? 204 : 500)(request, response),
      );
      cleanups.push(() => receiver.close());
      const gone = await startReceiver(answering(200));
      const closedPort = gone.port;
      await gone.close();

      const ports = {
        api: await freeLoopbackPort(),
        w1: await freeLoopbackPort(),
        w2: await freeLoopbackPort(),
      };
      const prometheus: PrometheusServer = await startPrometheus(PROMETHEUS as string, [
        { address: `127.0.0.1:${ports.api}`, labels: { process: "api" } },
        { address: `127.0.0.1:${ports.w1}`, labels: { process: "worker-1" } },
        { address: `127.0.0.1:${ports.w2}`, labels: { process: "worker-2" } },
      ]);
      cleanups.push(() => prometheus.stop());

      // 60x: a render takes 1 s, the deadline is 10 s away, webhook retries come every 0.5 s.
      const env = (role: string, metricsPort: number) => ({
        GENVIDEO_DATABASE_URL: url,
        GENVIDEO_ROLE: role,
        GENVIDEO_RENDERER: "fixture",
        GENVIDEO_TIME_SCALE: "60",
        GENVIDEO_RATE_LIMITS: "off",
        GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
        GENVIDEO_METRICS_PORT: String(metricsPort),
      });
      const start = (role: string, port: number) =>
        servers.start({ dataDir, startTimeoutMs: 180_000, env: env(role, port) });

      // No worker yet: what is created waits in the queue, and Prometheus sees it wait.
      const api = await start("api", ports.api);
      const waiting = [
        await createTask(api, { prompt: "a ghost ship [[timeout]]" }),
        await createTask(api, { prompt: "another ghost ship [[timeout]]" }),
      ];
      await eventually(
        async () =>
          (await prometheus.sum('genvideo:queue_tasks:max{state="queued"}')) === 2 ? true : undefined,
        30_000,
        "Prometheus to see two queued tasks",
      );
      await eventually(
        async () =>
          (await prometheus.sum("genvideo:queue_oldest_task_age_seconds:max")) > 0 ? true : undefined,
        30_000,
        "the oldest queued task to age",
      );
      expect(await prometheus.sum("genvideo:workers_live:count")).toBe(0);

      await Promise.all([start("worker", ports.w1), start("worker", ports.w2)]);
      const hook = (path: string) => ({ callback_url: `${receiver.origin}${path}` });
      const ids = [
        ...waiting,
        await createTask(api, { prompt: "a lighthouse", ...hook("/ok") }),
        await createTask(api, { prompt: "a harbour", ...hook("/fail") }),
        await createTask(api, { prompt: "a pier", callback_url: `http://127.0.0.1:${closedPort}/gone` }),
        await createTask(api, { prompt: "a storm [[fail:UNSAFE_CONTENT]]", model_type: "gen-3" }),
        await createTask(api, { prompt: "a wreck [[fail:GENERATION_FAILED]]" }),
      ];
      for (const id of ids) await waitForTerminal(api, id, 60_000);
      expect((await api.api(`/api/gen/status/${crypto.randomUUID()}`)).status).toBe(404);

      // Both receivers that never accept get their five attempts, then the deliveries fail.
      await eventually(
        async () =>
          (await prometheus.sum("sum(genvideo_webhook_deliveries_failed_total)")) === 2 ? true : undefined,
        60_000,
        "Prometheus to see two failed deliveries",
      );
      const byOutcome = async (promql: string) =>
        Object.fromEntries(
          (await prometheus.query(promql)).map((series) => [series.metric.outcome, series.value]),
        );
      // Counters from two worker processes, summed by Prometheus.
      await eventually(
        async () => {
          const ended = await byOutcome("sum by (outcome) (genvideo_tasks_ended_total)");
          return ended.TIMEOUT === 2 && ended.completed === 3 ? ended : undefined;
        },
        30_000,
        "every task end to be scraped",
      );
      expect(await byOutcome("sum by (outcome) (genvideo_tasks_ended_total)")).toEqual({
        completed: 3,
        TIMEOUT: 2,
        UNSAFE_CONTENT: 1,
        GENERATION_FAILED: 1,
      });
      expect(await byOutcome("sum by (outcome) (genvideo_webhook_attempts_total)")).toEqual({
        "2xx": 1,
        non_2xx: 5,
        connect_error: 5,
      });
      expect(await prometheus.sum("sum(genvideo_tasks_created_total)")).toBe(7);
      expect(await prometheus.sum("sum(genvideo_task_refunds_total)")).toBe(3);
      expect(await prometheus.sum("sum(genvideo_task_end_to_end_seconds_count)")).toBe(7);
      // Created by the api process; ended by the workers, never by it.
      expect(await prometheus.sum('sum(genvideo_tasks_created_total{process="api"})')).toBe(7);
      expect(await prometheus.sum('sum(genvideo_tasks_ended_total{process="api"})')).toBe(0);
      expect(
        await prometheus.sum(
          'sum(genvideo_http_request_duration_seconds_count{process="api", route="/api/gen/status/:task_id"})',
        ),
      ).toBeGreaterThanOrEqual(8);

      // The queue is empty again, and both workers are live. Each process reads the queue at its
      // own scrape: wait for the last of them to see the queue and the webhook outbox empty.
      const emptied = 'genvideo:queue_tasks:max{state="queued"} + genvideo:webhook_events_pending:max';
      await eventually(
        async () => ((await prometheus.sum(emptied)) === 0 ? true : undefined),
        30_000,
        "the queue and the webhook outbox to empty",
      );
      expect(await prometheus.sum("genvideo:queue_oldest_task_age_seconds:max")).toBe(0);
      expect(await prometheus.sum("genvideo:workers_live:count")).toBe(2);
      const roles = await prometheus.query("genvideo_process_role");
      expect(roles.map((series) => series.metric.role).sort()).toEqual(["api", "worker", "worker"]);
      expect(await prometheus.sum('count(genvideo_worker_render_slots{process=~"worker.*"} > 0)')).toBe(2);
      expect(await prometheus.sum("count(genvideo_postgres_pool_connections)")).toBe(6);
      expect(await prometheus.sum("count(nodejs_eventloop_lag_p99_seconds)")).toBe(3);
      expect(await prometheus.sum("count(up == 1)")).toBe(3);

      // Bounded labels: route templates only, and no label that names a task, an account or a path.
      const routes = await prometheus.labelValues("route");
      expect(routes.every((route) => route === "unmatched" || /^\/[a-z/:_*.]*$/.test(route))).toBe(true);
      expect(routes).toContain("/api/gen/status/:task_id");
      for (const id of ids) expect(routes.join(" ")).not.toContain(id);
      const names = await prometheus.labelNames();
      for (const unbounded of ["task_id", "account_id", "path", "url", "key"])
        expect(names).not.toContain(unbounded);
    });
  });
});
