import { type Duration, type EngineConfigInput, parseDuration } from "@genvideo/engine";
import { checkCallbackUrlSyntax } from "@genvideo/engine/rules";
import { encodeBase64 } from "@genvideo/schema";
import { seededRandom } from "./seeded-random.js";
import type { WebhookDeliveryMode } from "./webhook-deliveries.js";

/** How service time passes in the mock. Durations are `"90s"`, `"10m"`, ... or milliseconds. */
export interface MockTiming {
  /** Service time a normal generation takes from creation. Default `"1m"` (the reference server's). */
  generation?: Duration;
  /** A task not finished this long after creation fails with `TIMEOUT`. Default `"10m"`. */
  deadline?: Duration;
  /** Service time between two attempts of a failed webhook. Default `"30s"`. */
  webhookRetryDelay?: Duration;
  /** Service time at creation and after each `reset()`. Default: `Date.now()` then. */
  start?: Date | number;
  /**
   * Service milliseconds that pass per `Date.now()` millisecond, on top of
   * `clock.advance()`. Default 0: only `clock.advance()` moves service time.
   * With 1, vitest's `vi.advanceTimersByTime()` moves it; with 600, ten
   * service minutes pass in one real second (like `GENVIDEO_TIME_SCALE`).
   */
  scale?: number;
}

/** Options of `createGenVideoMock`; every one has a default. */
export interface GenVideoMockOptions {
  /** Where the code under test sends its API calls. Default `"https://api.genvideo.test"`. */
  baseUrl?: string;
  /** Keys the default account accepts (any 20 to 255 of `[A-Za-z0-9_-]`). Default: one, derived from `seed`. */
  apiKeys?: readonly string[];
  /** The account's webhook signing secret, `whsec_<base64>`. Default: derived from `seed`. */
  webhookSecret?: string;
  /**
   * Makes the default key, secret, video URL signatures, task ids, webhook ids
   * and request ids the same in every run (ids start over at each `reset()`).
   * Default `"genvideo"`.
   */
  seed?: string | number;
  timing?: MockTiming;
  /**
   * `"fetch"` (default): each webhook attempt is POSTed with the global
   * `fetch`, so your msw handler for the callback URL (or a real server)
   * receives it and its status counts. `"record"`: attempts are only recorded
   * and count as answered 200.
   */
  webhookDelivery?: WebhookDeliveryMode;
  /** Credits of the default account. Default 1000 (the reference server's). */
  credits?: number;
  /** The service's per-key rate limits; `false` turns them off. Default: on, with the service's limits. */
  rateLimits?: boolean | { createsPerMinute?: number; readsPerMinute?: number };
  /**
   * Accepts `http:` and loopback or private callback targets too (the server's
   * `GENVIDEO_ALLOW_INSECURE_CALLBACKS=1`). Default false: `https:` only, as
   * the service. Callback host names are never resolved.
   */
  allowInsecureCallbacks?: boolean;
  /** Prompt words that make a task fail with `UNSAFE_CONTENT` (the server's `GENVIDEO_UNSAFE_WORDS`). */
  unsafeWords?: readonly string[];
}

/** The options with every default filled in. */
export interface ResolvedMockOptions {
  seed: string;
  baseUrl: string;
  /** The path part of `baseUrl` (`""` or `/v1`), stripped before the engine routes a request. */
  basePath: string;
  apiKeys: readonly string[];
  webhookSecret: string;
  videoSigningKey: Uint8Array<ArrayBuffer>;
  start: number | undefined;
  scale: number;
  webhookDelivery: WebhookDeliveryMode;
  credits: number;
  engineConfig: EngineConfigInput;
}

const SUPPLIED_KEY = /^[A-Za-z0-9_-]{20,255}$/;
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{22,88}={0,2}$/;

/** Leases guard against crashed workers; the mock has one engine and jumps in time, so they never expire. */
const NEVER_EXPIRING_LEASE_MS = 365 * 24 * 3600_000;

export function resolveMockOptions(options: GenVideoMockOptions): ResolvedMockOptions {
  const seed = String(options.seed ?? "genvideo");
  const random = seededRandom(seed);
  const defaultKey = `gen_test_${random.alphanumeric(32)}`;
  const defaultSecret = `whsec_${encodeBase64(random.bytes(24))}`;
  const videoSigningKey = random.bytes(32);
  const url = new URL(options.baseUrl ?? "https://api.genvideo.test");
  const basePath = url.pathname.replace(/\/+$/, "");
  const baseUrl = `${url.origin}${basePath}`;
  const apiKeys = options.apiKeys ?? [defaultKey];
  if (apiKeys.length === 0) throw new RangeError("apiKeys needs at least one key");
  // Checked here, not at bootstrap, so a typo fails at createGenVideoMock() instead of in every handler.
  for (const key of apiKeys)
    if (!SUPPLIED_KEY.test(key))
      throw new RangeError(`API key "${key}" must be 20 to 255 characters of A-Z, a-z, 0-9, _ and -`);
  if (options.webhookSecret !== undefined && !WEBHOOK_SECRET.test(options.webhookSecret))
    throw new RangeError("webhookSecret must be whsec_ followed by standard base64 (16 to 64 bytes)");
  const timing = options.timing ?? {};
  const limits = options.rateLimits ?? true;
  const credits = options.credits ?? 1000;
  if (!Number.isInteger(credits) || credits < 0)
    throw new RangeError(`credits must be a whole number ≥ 0, got ${credits}`);
  return {
    seed,
    baseUrl,
    basePath,
    apiKeys,
    webhookSecret: options.webhookSecret ?? defaultSecret,
    videoSigningKey,
    start: timing.start === undefined ? undefined : Number(timing.start),
    scale: timing.scale ?? 0,
    webhookDelivery: options.webhookDelivery ?? "fetch",
    credits,
    engineConfig: {
      publicUrl: baseUrl,
      ...(timing.generation === undefined ? {} : { generationMs: parseDuration(timing.generation) }),
      ...(timing.deadline === undefined ? {} : { taskDeadlineMs: parseDuration(timing.deadline) }),
      webhooks: {
        leaseMs: NEVER_EXPIRING_LEASE_MS,
        ...(timing.webhookRetryDelay === undefined
          ? {}
          : { retryDelayMs: parseDuration(timing.webhookRetryDelay) }),
      },
      rateLimits: typeof limits === "boolean" ? { enabled: limits } : { enabled: true, ...limits },
      // Nothing renders (every task gets the fixture video), so claims need no cap.
      workerConcurrency: 1000,
      leaseMs: NEVER_EXPIRING_LEASE_MS,
      unsafeWords: options.unsafeWords ?? [],
      // The server's rules without its DNS step: the mock's callback hosts are usually names only msw knows.
      validateCallbackUrl: async (url) =>
        checkCallbackUrlSyntax(url, options.allowInsecureCallbacks ?? false),
      insecureCallbacksHint:
        "for local development, create the mock with allowInsecureCallbacks: true (http: and loopback or private receivers)",
    },
  };
}
