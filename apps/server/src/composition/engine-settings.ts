/**
 * Maps the server's settings onto the engine's. The interesting part is time:
 * the engine counts in service time, but leases guard against real things
 * (a process dying, a 30 s network attempt) that do not speed up under
 * GENVIDEO_TIME_SCALE, so their service-time length grows with the scale.
 */
import type { EngineConfigInput, EngineLogger } from "@genvideo/engine";
import type { ServerConfig } from "../config.js";
import type { ClientAddressOf } from "../http/client-address.js";
import { type Logger, requestLine } from "../logging/logger.js";

/**
 * Webhook attempts working at once. Mostly waiting on the network, not CPU:
 * 64 keeps a fast receiver flowing while dead ones hold their slots.
 */
const WEBHOOK_CONCURRENCY = 64;
/**
 * Real time between a worker's sweeps for work it does not hold (other
 * workers' expired leases and due tasks, a crashed process's leases, queued
 * tasks past their deadline): what it holds ends when due whatever this is.
 * Under a stream of creates a worker ticks back to back, and two sweeps per
 * tick cost SQLite about 6 µs of CPU per create.
 */
const SWEEP_INTERVAL_MS = 250;
/**
 * Real time between a worker's reads of the webhook outbox while it ticks back
 * to back (a queue being drained, a stream of creates): the worker loop's own
 * interval, so an event is still picked up within a tick's 50 ms, and a busy
 * worker's ticks are its claim alone in between. On SQLite that read is a
 * write transaction: once per tick it cost about 12 µs of CPU per create.
 */
const OUTBOX_READ_INTERVAL_MS = 50;

export function engineSettings(
  config: ServerConfig,
  publicUrl: string,
  logger: Logger,
  validateCallbackUrl: EngineConfigInput["validateCallbackUrl"],
  clientAddress: ClientAddressOf,
): EngineConfigInput {
  return {
    publicUrl,
    workerConcurrency: config.workers,
    // A crashed worker's tasks go back to the queue, and its webhook claims to the outbox, after
    // `config.leaseMs` of real time (GENVIDEO_LEASE, 10 s). A live attempt may run 30 s, longer
    // than that: the dispatcher renews the claim at half-life while the attempt runs, so the lease
    // only has to outlast the gap between two renewals (ticks run every 50 ms).
    leaseMs: Math.max(60_000, config.leaseMs * config.timeScale),
    sweepIntervalMs: SWEEP_INTERVAL_MS * config.timeScale,
    // On PostgreSQL a claim is a round trip away: a slot that frees is filled while the other renders run.
    refillSlots: config.database.kind === "postgres",
    webhooks: {
      leaseMs: config.leaseMs * config.timeScale,
      concurrency: WEBHOOK_CONCURRENCY,
      claimIntervalMs: OUTBOX_READ_INTERVAL_MS * config.timeScale,
    },
    rateLimits: config.rateLimits,
    clientAddress,
    unsafeWords: config.unsafeWords,
    logger: engineLogger(logger),
    ...(validateCallbackUrl ? { validateCallbackUrl } : {}),
    insecureCallbacksHint:
      "for local development, start the server with GENVIDEO_ALLOW_INSECURE_CALLBACKS=1 (http: and loopback or private receivers)",
  };
}

function engineLogger(logger: Logger): EngineLogger {
  return {
    request: requestLine(logger),
    error: (message, details) => logger.error(details, message),
    warn: (message, details) => logger.warn(details, message),
  };
}
