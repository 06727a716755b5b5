/**
 * Maps the server's settings onto the engine's. The interesting part is time:
 * the engine counts in service time, but leases guard against real things
 * (a process dying, a 30 s network attempt) that do not speed up under
 * GENVIDEO_TIME_SCALE, so their service-time length grows with the scale.
 */
import type { EngineConfigInput, EngineLogger } from "@genvideo/engine";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../http/logger.js";

/** A crashed worker's tasks go back to the queue after at least this much real time. */
const TASK_LEASE_REAL_MS = 10_000;
/** A webhook attempt may take 30 s of real time; its claim must outlast it. */
const WEBHOOK_LEASE_REAL_MS = 60_000;

export function engineSettings(
  config: ServerConfig,
  publicUrl: string,
  logger: Logger,
  validateCallbackUrl: EngineConfigInput["validateCallbackUrl"],
): EngineConfigInput {
  return {
    publicUrl,
    workerConcurrency: config.workers,
    leaseMs: Math.max(60_000, TASK_LEASE_REAL_MS * config.timeScale),
    webhooks: { leaseMs: Math.max(120_000, WEBHOOK_LEASE_REAL_MS * config.timeScale) },
    rateLimits: config.rateLimits,
    unsafeWords: config.unsafeWords,
    logger: engineLogger(logger),
    ...(validateCallbackUrl ? { validateCallbackUrl } : {}),
  };
}

export function engineLogger(logger: Logger): EngineLogger {
  return {
    request: (entry) => logger.info(entry, "request"),
    error: (message, details) => logger.error(details, message),
  };
}
