/**
 * The server's settings, one entry each (PostgreSQL and S3 ones are in `database-settings.ts`
 * and `s3-settings.ts`). To add one: an entry here, whose key is its field in `ServerConfig`,
 * and a row in the server README's "Settings" table.
 */
import {
  RATE_LIMIT_CREATES_PER_MINUTE,
  RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE,
  RATE_LIMIT_STATUS_READS_PER_MINUTE,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
} from "@genvideo/schema";
import { LOG_LEVELS, type LogLevel } from "../logging/log-level.js";
import { DEFAULT_RETENTION_MS, DEFAULT_URL_TTL_SECONDS } from "../video/local-video-storage.js";
import {
  apiKey,
  baseUrl,
  boolean,
  duration,
  integer,
  oneOf,
  rateLimits,
  text,
  timeScale,
  trustedProxies,
  webhookSecret,
  wordList,
} from "./parsers.js";
import { videoStorage } from "./s3-settings.js";
import { setting } from "./setting.js";

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
const RATE_LIMIT_DEFAULTS = {
  enabled: true,
  createsPerMinute: RATE_LIMIT_CREATES_PER_MINUTE,
  readsPerMinute: RATE_LIMIT_STATUS_READS_PER_MINUTE,
  failedAuthPerMinute: RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE,
};

export const SERVER_SETTINGS = {
  port: setting({
    name: "PORT",
    default: 8787,
    parse: integer(0, 65_535),
    description: "Port to listen on; 0 picks a free one (the listening log line has it).",
  }),
  host: setting({ name: "HOST", default: "127.0.0.1", parse: text, description: "Address to listen on." }),
  dataDir: setting({
    name: "GENVIDEO_DATA_DIR",
    default: "./.genvideo",
    parse: text,
    description: "Database (by default) and videos; resolved against where the command was run.",
  }),
  publicUrl: setting<string, undefined>({
    name: "GENVIDEO_PUBLIC_URL",
    default: undefined,
    parse: baseUrl,
    description: "Base of every URL the service hands out; http://<host>:<bound port> when unset.",
  }),
  bootstrapApiKey: setting<string, undefined>({
    name: "GENVIDEO_BOOTSTRAP_API_KEY",
    default: undefined,
    parse: apiKey,
    keepBlank: true,
    description: "The default account's API key, instead of a random one.",
  }),
  bootstrapWebhookSecret: setting<string, undefined>({
    name: "GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET",
    default: undefined,
    parse: webhookSecret,
    keepBlank: true,
    description: "The default account's webhook secret, instead of a random one.",
  }),
  timeScale: setting({
    name: "GENVIDEO_TIME_SCALE",
    default: 1,
    parse: timeScale,
    description: "Service milliseconds per real millisecond (600: ten minutes per second).",
  }),
  allowInsecureCallbacks: setting({
    name: "GENVIDEO_ALLOW_INSECURE_CALLBACKS",
    default: false,
    parse: boolean,
    description: "Allows http: and private callback targets (local development).",
  }),
  rateLimits: setting({
    name: "GENVIDEO_RATE_LIMITS",
    default: RATE_LIMIT_DEFAULTS,
    parse: rateLimits(RATE_LIMIT_DEFAULTS),
    description:
      "on, off, or creates=N,reads=N per API key and failed-auth=N failed authentications per client address, per minute.",
  }),
  trustedProxies: setting<string[]>({
    name: "GENVIDEO_TRUSTED_PROXIES",
    default: [],
    parse: trustedProxies,
    description:
      "Proxies whose X-Forwarded-For names the client (addresses, CIDRs, loopback); unset: the connection's peer is the client.",
  }),
  workers: setting({
    name: "GENVIDEO_WORKERS",
    default: 2,
    parse: integer(1, 256),
    description: "Renders in flight at once.",
  }),
  logLevel: setting<LogLevel>({
    name: "GENVIDEO_LOG_LEVEL",
    aliases: ["LOG_LEVEL"],
    default: "info",
    parse: oneOf(LOG_LEVELS, `one of ${LOG_LEVELS.join(", ")}`),
    description: "The least severe log lines written.",
  }),
  unsafeWords: setting({
    name: "GENVIDEO_UNSAFE_WORDS",
    default: [] as string[],
    parse: wordList,
    description: "Comma-separated prompt words that fail a task with UNSAFE_CONTENT.",
  }),
  renderer: setting<"synthetic" | "fixture">({
    name: "GENVIDEO_RENDERER",
    default: "synthetic",
    parse: oneOf(["synthetic", "fixture"], "synthetic or fixture"),
    description:
      "synthetic: real renders that follow the request; fixture: one tiny fixed MP4 (load tests, CI).",
  }),
  videoRetentionMs: setting({
    name: "GENVIDEO_VIDEO_RETENTION",
    default: DEFAULT_RETENTION_MS,
    parse: duration(SECOND_MS, 3650 * DAY_MS),
    description: "Videos last written longer ago than this (wall-clock) are deleted by the retention sweep.",
  }),
  historyRetentionMs: setting({
    name: "GENVIDEO_HISTORY_RETENTION",
    default: 30 * DAY_MS,
    parse: duration(60 * SECOND_MS, 3650 * DAY_MS),
    description:
      "Tasks that ended longer ago than this (service time) are deleted, with their webhook events and attempts; their ledger entries are carried forward.",
  }),
  videoUrlTtlSeconds: setting({
    name: "GENVIDEO_VIDEO_URL_TTL",
    default: DEFAULT_URL_TTL_SECONDS,
    // `expires` in a video URL is in whole seconds.
    parse: (raw, name) => Math.ceil(duration(SECOND_MS, 3650 * DAY_MS)(raw, name) / SECOND_MS),
    description: "How long a video_url stays valid, in seconds of service time.",
  }),
  videoSweepIntervalMs: setting({
    name: "GENVIDEO_VIDEO_SWEEP_INTERVAL",
    default: 10 * 60_000,
    parse: duration(100, DAY_MS),
    description: "Real ms between two retention sweeps (one also runs at every start).",
  }),
  videoStorage: setting({
    name: "GENVIDEO_VIDEO_STORAGE",
    default: { kind: "local" } as const,
    parse: videoStorage,
    description: "local files under the data directory, or s3://<bucket>/<prefix>.",
  }),
  leaseMs: setting({
    name: "GENVIDEO_LEASE",
    default: 10 * SECOND_MS,
    parse: duration(SECOND_MS, DAY_MS),
    description:
      "Real ms a task or webhook claim lasts without renewal: how long the work of a worker that died or froze waits before another takes it over.",
  }),
  webhookAttemptTimeoutMs: setting({
    name: "GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS",
    default: WEBHOOK_ATTEMPT_TIMEOUT_MS,
    parse: integer(100, WEBHOOK_ATTEMPT_TIMEOUT_MS),
    description:
      "Real ms a webhook attempt may take before it is abandoned; only ever shorter than the contract's 30 s, so tests can watch a timeout happen.",
  }),
};
