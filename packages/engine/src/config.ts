import {
  IDEMPOTENCY_KEY_TTL_MS,
  RATE_LIMIT_CREATES_PER_MINUTE,
  RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE,
  RATE_LIMIT_STATUS_READS_PER_MINUTE,
  REQUEST_BODY_MAX_BYTES,
  TASK_DEADLINE_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_SPACING_MS,
} from "@genvideo/schema";
import { type CallbackUrlCheck, checkCallbackUrlSyntax } from "./callback-url/callback-url-syntax.js";

/**
 * The engine's settings. Embedders pass a partial config; everything left out
 * takes the defaults listed in the engine README ("Configuration"). Durations are service-time milliseconds
 * unless the name says otherwise.
 */

export type { CallbackUrlCheck } from "./callback-url/callback-url-syntax.js";

/** One line per HTTP request. Never carries an API key (the path is logged without its query). */
export interface RequestLogEntry {
  requestId: string;
  method: string;
  path: string;
  /** 499 when the client went away before its request was whole (see `clientAborted`). */
  status: number;
  durationMs: number;
  /** The client closed the connection before its body was whole: not a server fault. */
  clientAborted?: true;
  /** The authenticated account, when there is one. */
  accountId?: string;
}

/** Where the engine reports what happened; every method is optional. */
export interface EngineLogger {
  request?(entry: RequestLogEntry): void;
  /** Unexpected failures: a 500, a render or delivery crash. `details` never holds secrets. */
  error?(message: string, details: Record<string, unknown>): void;
  /**
   * Expected trouble worth an operator's eye, once per episode: a lease lost, a
   * renewal that failed (the database did not answer). `details` never holds secrets.
   */
  warn?(message: string, details: Record<string, unknown>): void;
}

export interface RateLimitConfig {
  /** `GENVIDEO_RATE_LIMITS=off` turns this off. */
  enabled: boolean;
  /** Token bucket for task creation (and redelivery), per API key. */
  createsPerMinute: number;
  /** Token bucket for reads (status, account, webhook listings), per API key. */
  readsPerMinute: number;
  /**
   * Failed authentications per client and minute (a bucket of this many, refilled at this rate),
   * then 429 until one is back. Counted only where `clientAddress` names the client.
   */
  failedAuthPerMinute: number;
}

export interface WebhookPolicy {
  maxAttempts: number;
  /** Service time from a failed attempt to the next one. */
  retryDelayMs: number;
  /** Deliveries in flight at once per engine; a slow receiver never blocks the others. */
  concurrency: number;
  /** How long a claimed delivery stays claimed; renewed while the attempt runs. */
  leaseMs: number;
  /**
   * Service time a tick waits after the last read of the outbox before it reads it again. 0 (the
   * default): every tick. A worker that ticks back to back (a queue being drained) then reads
   * the outbox once per interval rather than once per tick. A claim that took every slot (more
   * may be due) is followed at once by the next, whatever this is.
   */
  claimIntervalMs: number;
}

export interface EngineConfig {
  /** Base URL clients reach the service at, e.g. `http://127.0.0.1:8787` (no trailing slash). */
  publicUrl: string;
  /** Service time a normal generation takes, counted from creation. */
  generationMs: number;
  /** A task not finished this long after creation fails with TIMEOUT. */
  taskDeadlineMs: number;
  rateLimits: RateLimitConfig;
  /** Renders run at once per engine. */
  workerConcurrency: number;
  /** How long a claimed task stays claimed without renewal (a crashed worker's tasks return to the queue). */
  leaseMs: number;
  /**
   * Service time between two sweeps for work this engine does not hold: other
   * engines' expired leases and due tasks, queued tasks past their deadline.
   * 0 (the default): every tick. What the engine holds ends when it is due
   * either way. Many workers on one database set it: a busy worker ticks back
   * to back, and these reads find nothing on almost every tick.
   */
  sweepIntervalMs: number;
  /**
   * Whether render slots that free while a backlog waits are claimed for by the worker itself, once
   * half of them are free, at the end of the event loop's turn (a refill), rather than by the next
   * tick. Off by default: where a claim is no round trip (SQLite, in the process) the tick costs
   * little; on PostgreSQL the timer and the tick before the claim took a third of a busy worker's time.
   */
  refillSlots: boolean;
  webhooks: WebhookPolicy;
  /** Prompt words (case-insensitive, whole words) that make a task fail with UNSAFE_CONTENT. */
  unsafeWords: readonly string[];
  /** Checked at creation; the server plugs in its SSRF check. Default: https only. */
  validateCallbackUrl(url: string): Promise<CallbackUrlCheck>;
  /**
   * How this host allows `http:` and loopback or private callback targets for local development,
   * in its own terms (the server's setting, the mock's option): added to a refusal only they caused.
   */
  insecureCallbacksHint: string;
  logger: EngineLogger;
  /** Largest request body accepted (413 above it). */
  maxBodyBytes: number;
  /** How long an Idempotency-Key is remembered per account. */
  idempotencyTtlMs: number;
  /**
   * The client a request comes from (an address, or a block of them), for the limit on failed
   * authentications; `env` is what the embedder passed to `app.fetch`. Only the embedder knows
   * the connection and which proxies to believe. Unset (the msw mock): no such limit.
   */
  clientAddress?: (request: Request, env: unknown) => string | undefined;
}

/** What embedders pass: any subset, nested policies included. */
export type EngineConfigInput = Partial<Omit<EngineConfig, "rateLimits" | "webhooks">> & {
  rateLimits?: Partial<RateLimitConfig>;
  webhooks?: Partial<WebhookPolicy>;
};

/**
 * The default callback check: the callback URL rules that need no DNS
 * (`checkCallbackUrlSyntax`: https, no credentials or fragment, no literal
 * host that is not public). The server adds DNS and connect-time checks.
 */
export async function httpsOnlyCallbackUrl(url: string): Promise<CallbackUrlCheck> {
  return checkCallbackUrlSyntax(url, false);
}

/** Fills in the defaults and checks the numbers, so a bad setting fails at start, not at the first request. */
export function resolveEngineConfig(input: EngineConfigInput = {}): EngineConfig {
  const config: EngineConfig = {
    publicUrl: (input.publicUrl ?? "http://127.0.0.1:8787").replace(/\/+$/, ""),
    generationMs: input.generationMs ?? 60_000,
    taskDeadlineMs: input.taskDeadlineMs ?? TASK_DEADLINE_MS,
    rateLimits: {
      enabled: true,
      createsPerMinute: RATE_LIMIT_CREATES_PER_MINUTE,
      readsPerMinute: RATE_LIMIT_STATUS_READS_PER_MINUTE,
      failedAuthPerMinute: RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE,
      ...input.rateLimits,
    },
    workerConcurrency: input.workerConcurrency ?? 2,
    leaseMs: input.leaseMs ?? 60_000,
    sweepIntervalMs: input.sweepIntervalMs ?? 0,
    refillSlots: input.refillSlots ?? false,
    webhooks: {
      maxAttempts: WEBHOOK_MAX_ATTEMPTS,
      retryDelayMs: WEBHOOK_RETRY_SPACING_MS,
      concurrency: 8,
      leaseMs: 120_000,
      claimIntervalMs: 0,
      ...input.webhooks,
    },
    unsafeWords: input.unsafeWords ?? [],
    validateCallbackUrl: input.validateCallbackUrl ?? httpsOnlyCallbackUrl,
    insecureCallbacksHint:
      input.insecureCallbacksHint ?? "for local development, allow insecure callbacks where the service runs",
    logger: input.logger ?? {},
    maxBodyBytes: input.maxBodyBytes ?? REQUEST_BODY_MAX_BYTES,
    idempotencyTtlMs: input.idempotencyTtlMs ?? IDEMPOTENCY_KEY_TTL_MS,
    ...(input.clientAddress ? { clientAddress: input.clientAddress } : {}),
  };
  const positive: [string, number][] = [
    ["taskDeadlineMs", config.taskDeadlineMs],
    ["workerConcurrency", config.workerConcurrency],
    ["leaseMs", config.leaseMs],
    ["maxBodyBytes", config.maxBodyBytes],
    ["idempotencyTtlMs", config.idempotencyTtlMs],
    ["rateLimits.createsPerMinute", config.rateLimits.createsPerMinute],
    ["rateLimits.readsPerMinute", config.rateLimits.readsPerMinute],
    ["rateLimits.failedAuthPerMinute", config.rateLimits.failedAuthPerMinute],
    ["webhooks.maxAttempts", config.webhooks.maxAttempts],
    ["webhooks.concurrency", config.webhooks.concurrency],
    ["webhooks.leaseMs", config.webhooks.leaseMs],
  ];
  for (const [name, value] of positive) {
    if (!(value > 0) || !Number.isFinite(value))
      throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
  // Zero is allowed for these: a mock may want instant generation or back-to-back retries.
  const nonNegative: [string, number][] = [
    ["generationMs", config.generationMs],
    ["sweepIntervalMs", config.sweepIntervalMs],
    ["webhooks.retryDelayMs", config.webhooks.retryDelayMs],
    ["webhooks.claimIntervalMs", config.webhooks.claimIntervalMs],
  ];
  for (const [name, value] of nonNegative) {
    if (!(value >= 0) || !Number.isFinite(value))
      throw new RangeError(`${name} must be zero or more, got ${value}`);
  }
  return config;
}
