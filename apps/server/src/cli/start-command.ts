/**
 * `genvideo-server start`: the server in the foreground until SIGINT or
 * SIGTERM, then a graceful shutdown. On the very first start it creates the
 * default account and shows its API key, webhook secret and a dashboard
 * sign-in link, once.
 *
 * Two streams, two readers: stdout is the structured log (one JSON object a
 * line, for collectors), stderr is for the person at the terminal. What is
 * shown once goes to stderr only, so no secret ever enters the structured log
 * (apps/server/README.md, "Start"); a deployment that collects stderr too sets
 * GENVIDEO_BOOTSTRAP_API_KEY and GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET, and then
 * nothing secret is printed at all.
 */
import { AdminError, type BootstrapResult } from "@genvideo/engine";
import { startNodeServer } from "../composition/node-server.js";
import { ConfigError, type ServerConfig } from "../config.js";
import { createLogger } from "../logging/logger.js";
import type { CliIo } from "./command-line.js";
import { cliInvocation } from "./invocation.js";

/** A second signal during shutdown gives up on it: the operator means it. */
const FORCED_EXIT_CODE = 130;

export async function runStartCommand(config: ServerConfig, io: CliIo): Promise<number> {
  const logger = createLogger(config.logLevel, undefined, { traceIds: config.tracing !== undefined });
  const cli = cliInvocation(io.env);
  const server = await startNodeServer(config, logger, { cliCommand: cli });
  let bootstrap: BootstrapResult;
  try {
    // Processes starting together on one PostgreSQL: one creates the default account, the others find it.
    bootstrap = await server.exclusive("bootstrap", () =>
      server.engine.admin.bootstrap({
        apiKey: config.bootstrapApiKey,
        webhookSecret: config.bootstrapWebhookSecret,
      }),
    );
  } catch (error) {
    await server.close();
    // A bootstrap key or secret the engine refuses is a setting the operator must fix.
    if (AdminError.isInstance(error)) throw new ConfigError(error.message);
    throw error;
  }
  if (bootstrap.created)
    showFirstStart(bootstrap, config, io, cli, await server.signInLink(bootstrap.account.id));

  server.logRenderer();
  logger.info(
    {
      url: server.url,
      publicUrl: server.publicUrl,
      ...(server.metricsUrl ? { metrics: server.metricsUrl } : {}),
      tracing: config.tracing ? `OTLP ${config.tracing.protocol}` : "off",
      database: server.databaseLocation,
      role: config.role,
      workerId: server.workerId,
      timeScale: config.timeScale,
      workers: config.workers,
      rateLimits: config.rateLimits.enabled,
      insecureCallbacks: config.allowInsecureCallbacks,
    },
    "listening",
  );
  io.err(`genvideo-server: listening on ${server.url} (API reference: ${server.url}/docs)`);
  if (config.role !== "worker")
    io.err(
      `genvideo-server: dashboard at ${new URL("/dashboard", server.publicUrl).href}; a sign-in link: ${cli} dashboard link --account default`,
    );
  if (config.timeScale !== 1)
    io.err(
      `genvideo-server: service time runs ${config.timeScale}x as fast as real time (GENVIDEO_TIME_SCALE)`,
    );
  io.err(
    config.allowInsecureCallbacks
      ? "genvideo-server: insecure callbacks allowed: callback_url may be http: or a loopback or private address (local development only)"
      : "genvideo-server: insecure callbacks off: callback_url must be https: to a public address (GENVIDEO_ALLOW_INSECURE_CALLBACKS=1 allows local receivers)",
  );

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, "second signal: exiting without finishing the shutdown");
        logger.flush();
        process.exit(FORCED_EXIT_CODE);
      }
      stopping = true;
      logger.info({ signal }, "shutting down");
      server.close().then(
        () => {
          logger.info("stopped");
          logger.flush();
          resolve(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          logger.flush();
          resolve(1);
        },
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** What the first start shows once, to the person at the terminal (stderr), never to the log. */
function showFirstStart(
  bootstrap: BootstrapResult,
  config: ServerConfig,
  io: CliIo,
  cli: string,
  signInLink: string,
): void {
  io.err("");
  io.err(
    `genvideo-server: first start: created account "${bootstrap.account.name}" with ${bootstrap.account.credits} credits.`,
  );
  if (bootstrap.apiKey !== undefined && config.bootstrapApiKey === undefined) {
    io.err("API key (shown once, store it now):");
    io.err(bootstrap.apiKey);
  } else {
    io.err("API key: the one in GENVIDEO_BOOTSTRAP_API_KEY.");
  }
  if (bootstrap.webhookSecret !== undefined && config.bootstrapWebhookSecret === undefined) {
    io.err("Webhook signing secret (shown once):");
    io.err(bootstrap.webhookSecret);
  } else {
    io.err("Webhook signing secret: the one in GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET.");
  }
  io.err(`Dashboard sign-in link (works once, for 15 minutes; get another with ${cli} dashboard link):`);
  io.err(signInLink);
  io.err("");
}
