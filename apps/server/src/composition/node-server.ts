/**
 * The reference server on Node: the engine on @hono/node-server with SQLite or PostgreSQL,
 * the synthetic renderer, local video files and the SSRF-safe webhook
 * sender, plus the worker loop that drives it. `startNodeServer` returns once
 * the server listens and (for roles that work) the first sweep has run;
 * `close()` is the graceful shutdown.
 *
 * Roles (GENVIDEO_ROLE): `all` does everything (the only role on SQLite);
 * `api` answers HTTP and runs no worker loop; `worker` runs the loop
 * (renders, timeouts, webhooks, retention) and answers only /healthz and
 * /readyz, for its orchestrator.
 */
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { createEngine, type Engine, type Renderer } from "@genvideo/engine";
import { WEBHOOK_CONNECT_TIMEOUT_MS } from "@genvideo/schema";
import { serve } from "@hono/node-server";
import type { ServiceClock } from "../clock/service-clock.js";
import { ConfigError, defaultPublicUrl, type ServerConfig } from "../config.js";
import { createDashboard } from "../dashboard/dashboard-app.js";
import { createSignInLink } from "../dashboard/sessions.js";
import { clientAddressResolver } from "../http/client-address.js";
import { answerClientErrors } from "../http/client-error.js";
import { drainOnClose } from "../http/connection-drain.js";
import type { Logger } from "../logging/logger.js";
import { createFixtureRenderer } from "../renderer/fixture-renderer.js";
import { createSyntheticRenderer } from "../renderer/synthetic-renderer.js";
import { DashboardQueries } from "../store/dashboard-queries.js";
import { expectedDatabaseFailure } from "../store/database-failure.js";
import { tightenedDataModes } from "../store/private-files.js";
import { createRetentionSweeper } from "../video/retention-sweeper.js";
import type { VideoFileStorage } from "../video/video-file-storage.js";
import { createWebhookTransport } from "../webhooks/webhook-transport.js";
import { createHistoryRetention } from "../worker/history-retention.js";
import { gateTicks } from "../worker/tick-gate.js";
import { startWorkerLoop } from "../worker/worker-loop.js";
import { engineSettings } from "./engine-settings.js";
import { renderCapacityWarning } from "./render-capacity.js";
import { createRequestHandler, type RequestHandler } from "./request-handler.js";
import { openServerDatabase } from "./server-database.js";
import { openServerTelemetry } from "./server-telemetry.js";
import { startingUpResponse } from "./starting-up.js";
import { openVideoStorage } from "./video-storage.js";

export interface NodeServer {
  url: string;
  publicUrl: string;
  engine: Engine;
  clock: ServiceClock;
  /** This process's lease owner name (also its PostgreSQL application_name). */
  workerId: string;
  /** Where Prometheus scrapes this process (GENVIDEO_METRICS_PORT); undefined when it does not listen. */
  metricsUrl: string | undefined;
  /** Where its database is, fit for logs. */
  databaseLocation: string;
  /** Runs `work` while no other process on the database runs work of that name. */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Logs which renderer runs and where it makes frames. The caller logs it
   * once the start has succeeded, next to "listening", so a start that fails
   * (a refused bootstrap key) writes nothing to stdout.
   */
  logRenderer(): void;
  /** A fresh one-time dashboard sign-in link for an account (15 minutes). */
  signInLink(accountId: string): Promise<string>;
  /** Stop accepting, finish or hand back work in flight, close the database. Safe to call twice. */
  close(): Promise<void>;
}

/** Real time between two ticks: short, so a finished task shows at most this late. */
const TICK_INTERVAL_MS = 50;
/** How often the clock's high-water mark is written (real time). */
const CLOCK_PERSIST_INTERVAL_MS = 1000;
/**
 * SQLite: real time between two full ticks at most when ticks are skipped
 * (nothing written, nothing due; see worker/tick-gate.ts). Key "last used"
 * times and the idempotency sweep, which ride on the tick, wait this long at most.
 */
const FULL_TICK_AT_LEAST_EVERY_MS = 1000;

/**
 * How long an idle keep-alive connection stays open (docs/operating.md,
 * "Connections"): longer than the pools in front of or calling the server
 * keep theirs (undici 4 s, nginx's upstream keepalive and load balancers 60 s).
 * Node's 5 s default closed connections that a client with a longer idle
 * timeout still held: its next request, sent as the server closed, met
 * ECONNRESET. The pool must close first, never the server.
 */
const KEEP_ALIVE_TIMEOUT_MS = 75_000;
/** Above the keep-alive timeout, as Node asks: a request on a reused connection is not cut short. */
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 5_000;
/**
 * How long a graceful stop lets the requests in flight finish (docs/operating.md, "Connections"):
 * an API call takes milliseconds; what is still busy then (a long download, a client that stopped
 * sending) is closed, so the stop ends well within `docker stop`'s 10 s.
 */
const REQUEST_DRAIN_MS = 5_000;

export interface NodeServerOptions {
  /** How to run the CLI the way this server was started (`pnpm genvideo-server`): the dashboard's hints print it. */
  cliCommand?: string;
}

export async function startNodeServer(
  config: ServerConfig,
  logger: Logger,
  options: NodeServerOptions = {},
): Promise<NodeServer> {
  const workerId = `${config.role}-${hostname().slice(0, 20)}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  keepDataPrivate(config, logger);
  const database = await openServerDatabase(config, { server: true, applicationName: workerId, logger });
  const { db, clock } = database;
  const telemetry = openServerTelemetry(config, { workerId, database, logger });
  const store = telemetry.store(database.store);
  const works = config.role !== "api";
  let accepting = true;
  let handler: RequestHandler | undefined;

  // Listen first: with PORT=0 the public URL (in every video_url) needs the bound port.
  const server = serve({
    fetch: (request: Request, env: unknown) =>
      handler ? handler(request, env) : startingUpResponse(request),
    port: config.port,
    hostname: config.host,
    serverOptions: { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS },
  });
  answerHalfClosedConnections(server);
  answerClientErrors(server as HttpServer);
  // A graceful stop drains its connections (docs/operating.md, "Connections").
  const connections = drainOnClose(server as HttpServer);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  } catch (error) {
    await database.close();
    throw listenError(error, config);
  }
  const port = (server.address() as AddressInfo).port;
  const url = defaultPublicUrl(config.host, port);
  const publicUrl = config.publicUrl ?? url;

  const { storage, served } = await openVideoStorage(config, publicUrl, db).catch(async (error: unknown) => {
    server.close();
    await database.close();
    throw error;
  });
  const { renderer, logRenderer } = createRenderer(config, storage, logger);
  // One answer to "who is this client" for the API's failed-auth limit and the dashboard's sign-in limit.
  const clientAddress = clientAddressResolver(config.trustedProxies);
  // The worker loop starts once the engine exists; until then there is nothing to wake.
  let wakeWorker: () => void = () => undefined;
  // One transport: the sender and the creation-time URL check share the flag and the resolver.
  const webhooks = createWebhookTransport({
    allowInsecure: config.allowInsecureCallbacks,
    attemptTimeoutMs: config.webhookAttemptTimeoutMs,
    // A shortened attempt deadline (tests) shortens the connect deadline with it.
    connectTimeoutMs: Math.min(WEBHOOK_CONNECT_TIMEOUT_MS, config.webhookAttemptTimeoutMs),
  });
  const engine = createEngine({
    store,
    clock,
    workerId,
    ...(database.rateLimiter ? { rateLimiter: database.rateLimiter } : {}),
    renderer: telemetry.renderer(renderer),
    videoStorage: storage,
    sender: telemetry.sender(webhooks.sender),
    config: engineSettings(config, publicUrl, logger, webhooks.validateCallbackUrl, clientAddress),
    // A free render slot is worth a tick now: the queue may hold the next task.
    onRenderEnded: () => wakeWorker(),
    ...(telemetry.observer ? { observer: telemetry.observer } : {}),
  });

  // Metrics listen before the startup sweep, so a port taken stops the start before any work.
  const metricsUrl = await telemetry.listen(engine).catch(async (error: unknown) => {
    server.close();
    await telemetry.close();
    await database.close();
    throw error;
  });

  const retention = createRetentionSweeper(storage, { intervalMs: config.videoSweepIntervalMs, logger });
  const history = createHistoryRetention({
    store,
    retentionMs: config.historyRetentionMs,
    serviceNow: () => clock.now(),
    reclaimSpace: () => database.reclaimSpace(),
    logger,
  });
  if (works) {
    // The sweep before serving: tasks whose deadline passed while the server was
    // down are timed out (and refunded) before anyone can read them.
    const sweep = await engine.tick();
    if (sweep.timedOut > 0 || sweep.released > 0) {
      logger.info({ timedOut: sweep.timedOut, released: sweep.released }, "startup sweep");
    }
    // Videos past their retention go before anyone can be handed a URL to them.
    await retention.sweepNow();
  }

  const dashboard = createDashboard({
    ...(options.cliCommand ? { cliCommand: options.cliCommand } : {}),
    db,
    store,
    engine,
    videoStorage: storage,
    sender: webhooks.sender,
    validateCallbackUrl: webhooks.validateCallbackUrl,
    publicUrl,
    serviceNow: () => clock.now(),
    timeScale: clock.scale,
    logger,
    clientAddress,
  });
  handler = telemetry.handler(
    createRequestHandler({
      engine,
      videos: served,
      db,
      clock,
      logger,
      accepting: () => accepting,
      publicUrl,
      dashboard: dashboard.app,
      healthOnly: config.role === "worker",
      ...(telemetry.hostRequest ? { observeRequest: telemetry.hostRequest } : {}),
      ...(database.reachability
        ? { answeredUnavailable: () => database.reachability!.answeredUnavailable() }
        : {}),
    }),
  );
  let lastPersist = 0;
  const persistClock = async () => {
    if (performance.now() - lastPersist < CLOCK_PERSIST_INTERVAL_MS) return;
    lastPersist = performance.now();
    await clock.persist();
  };
  // An API process does no worker ticks, but it writes the "last used" times of the keys it
  // authenticated (the dashboard shows them), and its clock's heartbeat still tells the others
  // that the cluster's service time is in use: its "housekeeping" loop.
  const gate = database.workSignals
    ? gateTicks(engine, {
        signals: database.workSignals,
        clock,
        fullTickEveryMs: FULL_TICK_AT_LEAST_EVERY_MS,
      })
    : undefined;
  // A tick that fails because the database is out of reach is counted in the episode's closing line.
  const countedElsewhere = database.reachability
    ? (error: unknown, startedAt: number) => database.reachability!.housekeepingFailed(error, startedAt)
    : undefined;
  const worker = works
    ? startWorkerLoop(gate ?? engine, {
        intervalMs: TICK_INTERVAL_MS,
        logger,
        expectedFailure: expectedDatabaseFailure,
        ...(countedElsewhere ? { countedElsewhere } : {}),
        didWork: (report) =>
          report !== undefined && report.claimed + report.completed + report.failed + report.timedOut > 0,
        async afterTick() {
          retention.sweepIfDue();
          await history.runIfDue();
          await persistClock();
        },
      })
    : startWorkerLoop(
        { tick: () => engine.flushKeyUsage() },
        {
          name: "housekeeping",
          intervalMs: CLOCK_PERSIST_INTERVAL_MS,
          logger,
          afterTick: persistClock,
          expectedFailure: expectedDatabaseFailure,
          ...(countedElsewhere ? { countedElsewhere } : {}),
        },
      );
  wakeWorker = () => {
    gate?.expectWork();
    worker.wake();
  };
  const listener = works ? database.listen(() => worker.wake()) : undefined;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      accepting = false;
      dashboard.close();
      // Stop taking connections; requests in flight finish (for REQUEST_DRAIN_MS at most), idle
      // and never used connections close at once.
      const drained = connections.close(REQUEST_DRAIN_MS);
      await listener?.stop();
      await worker.stop();
      await retention.stop();
      await engine.drain();
      await webhooks.sender.close();
      const { cut } = await drained;
      if (cut > 0)
        logger.warn(
          { connections: cut, drainMs: REQUEST_DRAIN_MS },
          "requests still in flight at the end of the drain: their connections were closed",
        );
      await clock.persist();
      await database.close();
      // Last: the spans of the shutdown itself go out too.
      await telemetry.close();
    })();
    return closing;
  };

  const signInLink = async (accountId: string) =>
    (await createSignInLink(new DashboardQueries(db), accountId, publicUrl)).url;
  return {
    url,
    publicUrl,
    engine,
    clock,
    workerId,
    metricsUrl,
    ...(database.rateLimiter ? { rateLimiter: database.rateLimiter } : {}),
    databaseLocation: database.location,
    exclusive: (name, work) => database.exclusive(name, work),
    logRenderer,
    signInLink,
    close,
  };
}

/** The configured renderer, and the startup lines that say which it is and whether it keeps up. */
function createRenderer(
  config: ServerConfig,
  storage: VideoFileStorage,
  logger: Logger,
): { renderer: Renderer; logRenderer: () => void } {
  if (config.renderer === "fixture") {
    return {
      renderer: createFixtureRenderer(storage),
      logRenderer: () => logger.info({ renderer: "fixture" }, "renderer: one fixed tiny MP4 per task"),
    };
  }
  const renderer = createSyntheticRenderer({ storage });
  const capacity = renderCapacityWarning(config.timeScale, config.workers);
  return {
    renderer,
    logRenderer: () => {
      logger.info({ renderer: "synthetic" }, "renderer: synthetic videos drawn and encoded by ffmpeg");
      if (capacity) {
        const { message, ...fields } = capacity;
        logger.warn({ renderer: "synthetic", ...fields, wayOut: "GENVIDEO_RENDERER=fixture" }, message);
      }
    },
  };
}

/** A port taken or an address not ours is a configuration problem: say which setting. */
function listenError(error: unknown, config: ServerConfig): Error {
  const code = (error as { code?: string }).code;
  const where = `${config.host}:${config.port}`;
  if (code === "EADDRINUSE")
    return new ConfigError(`PORT ${config.port} is already in use on ${config.host}`);
  if (code === "EACCES")
    return new ConfigError(`PORT ${config.port} needs privileges this process does not have`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new ConfigError(`HOST ${config.host} is not an address of this machine`);
  }
  return new Error(`cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * A client may send its whole request and then close its sending side
 * (`socket.end()`, `shutdown(SHUT_WR)`) while it waits for the answer. Node's
 * HTTP server by default treats that FIN as the end of the connection: it
 * aborts the request in flight and ends the socket, so a response made after
 * it (every create: auth, body, store) is written to nobody, although the
 * handler ran and the request log says 200. `httpAllowHalfOpen` (a property of
 * Node's http.Server since its first versions, not in its typings) keeps the
 * socket writable and ends it after the last response instead.
 */
function answerHalfClosedConnections(server: object): void {
  (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
}

/**
 * The data directory 0700 and a SQLite database's files 0600 (store/private-files.ts); an install
 * an earlier version made readable by every local user is narrowed here, once, and said so.
 */
function keepDataPrivate(config: ServerConfig, logger: Logger): void {
  const sqlitePath = config.database.kind === "sqlite" ? config.database.path : undefined;
  try {
    const tightened = tightenedDataModes(config.dataDir, sqlitePath);
    if (tightened.length > 0)
      logger.info(
        { paths: tightened.map(({ path, from, to }) => `${path} ${from} -> ${to}`) },
        "file modes narrowed: the data is readable by the server's user only",
      );
  } catch (error) {
    // Not the owner (a volume mounted from elsewhere): the server still runs, and the operator is told.
    logger.warn(
      { dataDir: config.dataDir, error: error instanceof Error ? error.message : String(error) },
      "cannot make the data directory private (0700); other local users may read its secrets",
    );
  }
}
