/**
 * What a process shows its operator: Prometheus metrics on their own listener
 * (GENVIDEO_METRICS_PORT) and OpenTelemetry traces (OTEL_*), each only when
 * asked for. Off, nothing is wrapped and nothing observes: the engine runs
 * exactly as it would without this module.
 */
import type {
  Engine,
  EngineObserver,
  HttpRequestEvent,
  Renderer,
  Store,
  WebhookSender,
} from "@genvideo/engine";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logging/logger.js";
import { combineObservers } from "../telemetry/combine-observers.js";
import { createServerMetrics, type ServerMetrics } from "../telemetry/metrics.js";
import { type MetricsListener, startMetricsListener } from "../telemetry/metrics-listener.js";
import { readQueueSnapshot } from "../telemetry/queue-snapshot.js";
import {
  tracedHandler,
  tracedRenderer,
  tracedSender,
  tracedStore,
  tracingObserver,
} from "../telemetry/traced-ports.js";
import { startTracing, type Tracing } from "../telemetry/tracing.js";
import type { ServerDatabase } from "./server-database.js";

type Handler = (request: Request, env?: unknown) => Response | Promise<Response>;

export interface ServerTelemetry {
  /** What the engine reports to; undefined when neither metrics nor traces are on. */
  observer: EngineObserver | undefined;
  store(store: Store): Store;
  renderer(renderer: Renderer): Renderer;
  sender<S extends WebhookSender>(sender: S): S;
  handler(handler: Handler): Handler;
  /** Requests the server answers itself (health, videos, dashboard), for the request metric. */
  hostRequest: ((event: HttpRequestEvent) => void) | undefined;
  /** Opens `/metrics` once the engine runs (its gauges read it); returns its URL. */
  listen(engine: Engine): Promise<string | undefined>;
  /** Closes `/metrics` and sends the spans still batched. */
  close(): Promise<void>;
}

export function openServerTelemetry(
  config: ServerConfig,
  { workerId, database, logger }: { workerId: string; database: ServerDatabase; logger: Logger },
): ServerTelemetry {
  const tracing: Tracing | undefined = config.tracing
    ? startTracing(config.tracing, config.role, workerId)
    : undefined;
  let engine: Engine | undefined;
  const metrics: ServerMetrics | undefined = config.metrics
    ? createServerMetrics({
        role: config.role,
        renderSlots: config.role === "api" ? 0 : config.workers,
        activity: () => engine?.activity() ?? { renders: 0, leasesHeld: 0, webhookAttempts: 0 },
        queue: () => readQueueSnapshot(database.db),
        serviceNow: () => database.clock.now(),
        ...(database.poolStats ? { pool: database.poolStats } : {}),
        onQueueError: (error) =>
          logger.warn(
            { error: error instanceof Error ? error.message : String(error) },
            "metrics: queue read failed",
          ),
      })
    : undefined;
  let listener: MetricsListener | undefined;
  const observer =
    metrics || tracing
      ? combineObservers(metrics?.observer, tracing ? tracingObserver : undefined)
      : undefined;
  return {
    observer,
    store: (store) => (tracing ? tracedStore(store) : store),
    renderer: (renderer) => (tracing ? tracedRenderer(renderer) : renderer),
    sender: (sender) => (tracing ? tracedSender(sender) : sender),
    handler: (handler) => (tracing ? tracedHandler(handler) : handler),
    hostRequest: metrics?.hostRequest,
    async listen(running) {
      engine = running;
      if (!metrics || !config.metrics) return undefined;
      listener = await startMetricsListener(metrics.registry, config.metrics, (error) =>
        logger.error(
          { error: error instanceof Error ? error.message : String(error) },
          "metrics scrape failed",
        ),
      );
      return listener.url;
    },
    async close() {
      await listener?.close();
      await tracing?.shutdown();
    },
  };
}
