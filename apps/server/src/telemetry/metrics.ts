/**
 * The server's Prometheus metrics (docs/operating.md, "Watching a cluster"):
 * the engine's observer port turned into prom-client counters and
 * histograms, and gauges read when Prometheus scrapes (queue depth from the
 * database, what this process has in flight, its PostgreSQL pool).
 *
 * Every label is bounded: a route template, a method, a status class, an
 * outcome or failure code, a task state, a role. Never a task id, an account,
 * a key or a raw path: a label value that grows with traffic would grow the
 * scrape, and Prometheus with it, without end.
 */
import type { EngineActivity, EngineObserver, HttpRequestEvent } from "@genvideo/engine";
import { FAILURE_CATALOG, FAILURE_CODES } from "@genvideo/schema";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ServerRole } from "../config.js";
import type { QueueSnapshot } from "./queue-snapshot.js";
import { RequestHistogram } from "./request-histogram.js";

const REFUNDED_CODES = FAILURE_CODES.filter((code) => FAILURE_CATALOG[code].refunded);

/** What the gauges read at scrape time. */
export interface MetricSources {
  role: ServerRole;
  /** Render slots of this process (GENVIDEO_WORKERS); 0 in the api role. */
  renderSlots: number;
  activity(): EngineActivity;
  /** The queue as the database has it now (one statement). */
  queue(): Promise<QueueSnapshot>;
  /** Service time now, to age the oldest queued task. */
  serviceNow(): number;
  /** The PostgreSQL pool of this process; undefined on SQLite. */
  pool?: () => { total: number; idle: number; waiting: number };
  /** A failed queue read is logged, and the scrape still answers. */
  onQueueError(error: unknown): void;
}

export interface ServerMetrics {
  registry: Registry;
  /** The engine's observer: counts and times what the engine reports. */
  observer: EngineObserver;
  /** A request the server answered itself (health, videos, dashboard, docs), by route template. */
  hostRequest(event: HttpRequestEvent): void;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
/** Service seconds: a task's life is bounded by its 10-minute deadline. */
const TASK_SECONDS = [0.5, 1, 5, 15, 30, 60, 90, 120, 180, 300, 450, 600];

export function createServerMetrics(sources: MetricSources): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metric = { registers: [registry] };

  new Gauge({
    ...metric,
    name: "genvideo_process_role",
    help: "1 for this process, labelled with its role (all, api, worker): counts the live workers.",
    labelNames: ["role"],
  }).set({ role: sources.role }, 1);

  const requests = new RequestHistogram(registry, {
    name: "genvideo_http_request_duration_seconds",
    help: "HTTP requests by method, route template and status class (2xx, 4xx, 5xx).",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const observeRequest = ({ method, route, status, durationMs }: HttpRequestEvent) => {
    const knownMethod = METHODS.has(method) ? method : "other";
    const statusClass = `${Math.floor(status / 100)}xx`;
    // Every part bounded (a known method, a class, a route template): so is the number of keys.
    requests.observe(
      `${knownMethod} ${statusClass} ${route}`,
      () => ({ method: knownMethod, route, status_class: statusClass }),
      durationMs / 1000,
    );
  };

  const created = new Counter({
    ...metric,
    name: "genvideo_tasks_created_total",
    help: "Tasks created, by model.",
    labelNames: ["model"],
  });
  const ended = new Counter({
    ...metric,
    name: "genvideo_tasks_ended_total",
    help: `Tasks ended, by outcome: completed or the failure code (${FAILURE_CODES.join(", ")}).`,
    labelNames: ["outcome"],
  });
  const refunds = new Counter({
    ...metric,
    name: "genvideo_task_refunds_total",
    help: `Tasks whose credits went back (${REFUNDED_CODES.join(", ")}).`,
  });
  const queueWait = new Histogram({
    ...metric,
    name: "genvideo_task_queue_wait_seconds",
    help: "Service time from creation to the claim that took the task out of the queue.",
    buckets: TASK_SECONDS,
  });
  const generation = new Histogram({
    ...metric,
    name: "genvideo_task_generation_seconds",
    help: "Service time from the claim to the end of tasks that were claimed, by outcome.",
    labelNames: ["outcome"],
    buckets: TASK_SECONDS,
  });
  const endToEnd = new Histogram({
    ...metric,
    name: "genvideo_task_end_to_end_seconds",
    help: "Service time from creation to the end, by outcome.",
    labelNames: ["outcome"],
    buckets: TASK_SECONDS,
  });
  const takeovers = new Counter({
    ...metric,
    name: "genvideo_lease_takeovers_total",
    help: "Tasks whose worker's lease ran out (it died or froze), handed back to the queue.",
  });
  const attempts = new Counter({
    ...metric,
    name: "genvideo_webhook_attempts_total",
    help: "Webhook attempts by outcome: 2xx, non_2xx, timeout, connect_error, refused, error.",
    labelNames: ["outcome"],
  });
  const attemptSeconds = new Histogram({
    ...metric,
    name: "genvideo_webhook_attempt_duration_seconds",
    help: "Real time a webhook attempt took.",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
  const deliveriesFailed = new Counter({
    ...metric,
    name: "genvideo_webhook_deliveries_failed_total",
    help: "Webhook deliveries that failed after their last attempt.",
  });
  const deliveriesSucceeded = new Counter({
    ...metric,
    name: "genvideo_webhook_deliveries_delivered_total",
    help: "Webhook deliveries a receiver accepted (2xx).",
  });

  registerScrapeGauges(registry, sources);

  const observer: EngineObserver = {
    httpRequest: observeRequest,
    taskCreated: ({ modelType }) => created.inc({ model: modelType }),
    taskClaimed: ({ queueWaitMs }) => queueWait.observe(queueWaitMs / 1000),
    taskEnded: ({ outcome, endToEndMs, generationMs, refunded }) => {
      ended.inc({ outcome });
      endToEnd.observe({ outcome }, endToEndMs / 1000);
      if (generationMs !== null) generation.observe({ outcome }, generationMs / 1000);
      if (refunded) refunds.inc();
    },
    leasesTakenOver: (count) => takeovers.inc(count),
    webhookAttempt: ({ kind, durationMs, state }) => {
      attempts.inc({ outcome: kind });
      attemptSeconds.observe(durationMs / 1000);
      if (state === "failed") deliveriesFailed.inc();
      if (state === "delivered") deliveriesSucceeded.inc();
    },
  };
  return { registry, observer, hostRequest: observeRequest };
}

/** Gauges computed when scraped: nothing is counted between scrapes, so they cost nothing then. */
function registerScrapeGauges(registry: Registry, sources: MetricSources): void {
  const metric = { registers: [registry] };
  // The queue gauges come from one statement per scrape: the registry starts every metric's
  // collect in one synchronous loop, so the first starts the read and the others share it while
  // it runs. Once it has answered, the next scrape reads afresh.
  let inFlight: Promise<QueueSnapshot | undefined> | undefined;
  const queue = () => {
    inFlight ??= sources
      .queue()
      .catch((error: unknown) => {
        sources.onQueueError(error);
        return undefined;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  new Gauge({
    ...metric,
    name: "genvideo_queue_tasks",
    help: "Tasks queued and processing in the whole cluster (read from the database at scrape).",
    labelNames: ["state"],
    async collect() {
      this.reset();
      const read = await queue();
      if (read === undefined) return;
      this.set({ state: "queued" }, read.queued);
      this.set({ state: "processing" }, read.processing);
    },
  });
  new Gauge({
    ...metric,
    name: "genvideo_queue_oldest_task_age_seconds",
    help: "Service time the oldest queued task has waited since creation; 0 when none is queued.",
    async collect() {
      const read = await queue();
      if (read === undefined) return;
      const oldest = read.oldestQueuedAt;
      this.set(oldest === null ? 0 : Math.max(0, sources.serviceNow() - oldest) / 1000);
    },
  });
  new Gauge({
    ...metric,
    name: "genvideo_webhook_events_pending",
    help: "Webhook deliveries waiting for an attempt or a retry (cluster-wide, read at scrape).",
    async collect() {
      const read = await queue();
      if (read !== undefined) this.set(read.webhooksPending);
    },
  });

  new Gauge({
    ...metric,
    name: "genvideo_worker_render_slots",
    help: "Render slots of this process (GENVIDEO_WORKERS); 0 for an api process.",
  }).set(sources.renderSlots);
  new Gauge({
    ...metric,
    name: "genvideo_worker_render_slots_busy",
    help: "Render slots of this process rendering now.",
    collect() {
      this.set(sources.activity().renders);
    },
  });
  new Gauge({
    ...metric,
    name: "genvideo_worker_leases_held",
    help: "Tasks this process holds under a lease.",
    collect() {
      this.set(sources.activity().leasesHeld);
    },
  });
  new Gauge({
    ...metric,
    name: "genvideo_webhook_attempts_in_flight",
    help: "Webhook attempts this process is sending now.",
    collect() {
      this.set(sources.activity().webhookAttempts);
    },
  });

  const pool = sources.pool;
  if (pool === undefined) return;
  new Gauge({
    ...metric,
    name: "genvideo_postgres_pool_connections",
    help: "Connections of this process's PostgreSQL pool, by state (in_use, idle).",
    labelNames: ["state"],
    collect() {
      const { total, idle } = pool();
      this.set({ state: "in_use" }, total - idle);
      this.set({ state: "idle" }, idle);
    },
  });
  new Gauge({
    ...metric,
    name: "genvideo_postgres_pool_waiting",
    help: "Queries of this process waiting for a PostgreSQL connection.",
    collect() {
      this.set(pool().waiting);
    },
  });
}
