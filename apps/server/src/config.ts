/**
 * Reads the server's settings from the environment (the server README's
 * "Settings" table is the list of record). A bad value stops the start with one line naming the setting,
 * so the operator never has to guess which of a dozen variables is wrong.
 */
import { isAbsolute, resolve } from "node:path";
import { parseDuration } from "@genvideo/engine";
import {
  RATE_LIMIT_CREATES_PER_MINUTE,
  RATE_LIMIT_STATUS_READS_PER_MINUTE,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
} from "@genvideo/schema";
import { DEFAULT_RETENTION_MS, DEFAULT_URL_TTL_SECONDS } from "./video/local-video-storage.js";
import { MAX_PRESIGNED_SECONDS, type S3Credentials, type S3Location } from "./video/s3-video-storage.js";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export type DatabaseLocation =
  | { kind: "sqlite"; path: string }
  /** `url` as given (with its password): pass it to the driver, print `redactedUrl` instead. */
  | { kind: "postgres"; url: string; redactedUrl: string };

/** What a process does: `api` answers HTTP only, `worker` does the background work only, `all` both. */
export type ServerRole = "all" | "api" | "worker";
const ROLES: readonly ServerRole[] = ["all", "api", "worker"];

export interface PostgresSettings {
  /** Connections this process opens for queries (a worker opens one more to LISTEN). */
  poolSize: number;
  /** LISTEN for wake-up hints; off for PgBouncer in transaction mode (polling alone then). */
  listen: boolean;
}

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Where videos live: files under the data directory, or an S3-compatible bucket every machine reaches. */
export type VideoStorageSetting =
  | { kind: "local" }
  | {
      kind: "s3";
      location: S3Location;
      /** Absent: AWS S3 itself. */
      endpoint: string | undefined;
      region: string;
      credentials: S3Credentials;
    };

export interface RateLimitSettings {
  enabled: boolean;
  createsPerMinute: number;
  readsPerMinute: number;
}

export interface ServerConfig {
  port: number;
  host: string;
  /** Absolute; relative settings resolve against where the user ran the command. */
  dataDir: string;
  database: DatabaseLocation;
  role: ServerRole;
  postgres: PostgresSettings;
  /** Base of every URL the service hands out; undefined means `http://<host>:<bound port>`. */
  publicUrl: string | undefined;
  bootstrapApiKey: string | undefined;
  bootstrapWebhookSecret: string | undefined;
  /** Service milliseconds per real millisecond. */
  timeScale: number;
  allowInsecureCallbacks: boolean;
  rateLimits: RateLimitSettings;
  /** Renders in flight at once. */
  workers: number;
  logLevel: LogLevel;
  /** Prompt words that make a task fail with UNSAFE_CONTENT. */
  unsafeWords: string[];
  /** `synthetic`: real renders that follow the request; `fixture`: one tiny fixed MP4 (load tests, CI). */
  renderer: "synthetic" | "fixture";
  /** GENVIDEO_VIDEO_STORAGE: local files (default) or `s3://bucket/prefix`. */
  videoStorage: VideoStorageSetting;
  /** Videos last written longer ago than this (wall-clock ms) are deleted by the retention sweep. */
  videoRetentionMs: number;
  /** How long a `video_url` stays valid, in seconds of service time. */
  videoUrlTtlSeconds: number;
  /** Real ms between two retention sweeps (one also runs at every start). */
  videoSweepIntervalMs: number;
  /**
   * Real ms a webhook attempt may take before it is abandoned. Only ever
   * shorter than the contract's 30 s, so tests can watch a timeout happen.
   */
  webhookAttemptTimeoutMs: number;
  /**
   * Real ms a task or webhook claim lasts without renewal: how long the work
   * of a worker that died or froze waits before another takes it over.
   */
  leaseMs: number;
}

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;

type Environment = Record<string, string | undefined>;

/**
 * pnpm runs a package's scripts inside the package (apps/server), but a user
 * who types `pnpm start` at the repo root expects `./.genvideo` there; pnpm
 * keeps that directory in INIT_CWD.
 */
export function invocationDirectory(env: Environment = process.env): string {
  return env.INIT_CWD?.trim() || process.cwd();
}

export function loadConfig(
  env: Environment = process.env,
  baseDirectory = invocationDirectory(env),
): ServerConfig {
  const port = integerSetting(env, "PORT", 8787, 0, 65_535);
  const host = env.HOST?.trim() || "127.0.0.1";
  const dataDir = resolve(baseDirectory, env.GENVIDEO_DATA_DIR?.trim() || "./.genvideo");
  const timeScale = timeScaleSetting(env);
  // `expires` in a video URL is in whole seconds.
  const videoUrlTtlSeconds = Math.ceil(
    durationSetting(
      env,
      "GENVIDEO_VIDEO_URL_TTL",
      DEFAULT_URL_TTL_SECONDS * SECOND_MS,
      SECOND_MS,
      3650 * DAY_MS,
    ) / SECOND_MS,
  );
  const database = databaseSetting(env, baseDirectory, dataDir);
  return {
    port,
    host,
    dataDir,
    database,
    role: roleSetting(env, database),
    postgres: {
      poolSize: integerSetting(env, "GENVIDEO_PG_POOL_SIZE", 10, 1, 1000),
      listen: booleanSetting(env, "GENVIDEO_PG_LISTEN", true),
    },
    publicUrl: publicUrlSetting(env),
    bootstrapApiKey: bootstrapApiKeySetting(env),
    bootstrapWebhookSecret: bootstrapWebhookSecretSetting(env),
    timeScale,
    allowInsecureCallbacks: booleanSetting(env, "GENVIDEO_ALLOW_INSECURE_CALLBACKS", false),
    rateLimits: rateLimitSetting(env),
    workers: integerSetting(env, "GENVIDEO_WORKERS", 2, 1, 256),
    logLevel: logLevelSetting(env),
    unsafeWords: (env.GENVIDEO_UNSAFE_WORDS ?? "")
      .split(",")
      .map((word) => word.trim())
      .filter(Boolean),
    renderer: rendererSetting(env),
    videoRetentionMs: durationSetting(
      env,
      "GENVIDEO_VIDEO_RETENTION",
      DEFAULT_RETENTION_MS,
      SECOND_MS,
      3650 * DAY_MS,
    ),
    videoStorage: videoStorageSetting(env, videoUrlTtlSeconds, timeScale),
    videoUrlTtlSeconds,
    videoSweepIntervalMs: durationSetting(env, "GENVIDEO_VIDEO_SWEEP_INTERVAL", 10 * 60_000, 100, DAY_MS),
    leaseMs: durationSetting(env, "GENVIDEO_LEASE", 10 * SECOND_MS, SECOND_MS, DAY_MS),
    webhookAttemptTimeoutMs: integerSetting(
      env,
      "GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS",
      WEBHOOK_ATTEMPT_TIMEOUT_MS,
      100,
      WEBHOOK_ATTEMPT_TIMEOUT_MS,
    ),
  };
}

function rendererSetting(env: Environment): ServerConfig["renderer"] {
  const raw = env.GENVIDEO_RENDERER?.trim().toLowerCase();
  if (!raw || raw === "synthetic") return "synthetic";
  if (raw === "fixture") return "fixture";
  throw new ConfigError(`GENVIDEO_RENDERER must be synthetic or fixture, got "${env.GENVIDEO_RENDERER}"`);
}

const S3_SETTINGS = ["GENVIDEO_S3_ENDPOINT", "GENVIDEO_S3_REGION"] as const;

/**
 * GENVIDEO_VIDEO_STORAGE and the S3 settings that go with it. An object store
 * checks a presigned URL's expiry on its own clock, in real time, and takes
 * at most 7 days: the TTL, in service time, must fit once scaled.
 */
function videoStorageSetting(env: Environment, ttlSeconds: number, timeScale: number): VideoStorageSetting {
  const raw = env.GENVIDEO_VIDEO_STORAGE?.trim();
  if (!raw || raw === "local") {
    const stray = S3_SETTINGS.find((name) => env[name]?.trim());
    if (stray) {
      throw new ConfigError(`${stray} is set but GENVIDEO_VIDEO_STORAGE is not s3://<bucket>/<prefix>`);
    }
    return { kind: "local" };
  }
  // Bucket names as S3-compatible services allow them (AWS is stricter; it refuses what it does not take).
  const match = /^s3:\/\/([A-Za-z0-9][A-Za-z0-9._-]{1,254})(?:\/(.*))?$/.exec(raw);
  const bucket = match?.[1];
  const prefix = (match?.[2] ?? "").replace(/\/+$/, "");
  if (!bucket || prefix.startsWith("/") || prefix.includes("//")) {
    throw new ConfigError(`GENVIDEO_VIDEO_STORAGE must be local or s3://<bucket>[/<prefix>], got "${raw}"`);
  }
  if (Math.ceil(ttlSeconds / timeScale) > MAX_PRESIGNED_SECONDS) {
    const scaled = timeScale === 1 ? "" : ` at GENVIDEO_TIME_SCALE=${timeScale}`;
    throw new ConfigError(
      `GENVIDEO_VIDEO_URL_TTL must be at most 7d of real time with s3:// video storage (the longest a presigned URL lives), got "${env.GENVIDEO_VIDEO_URL_TTL?.trim() || "7d"}"${scaled}`,
    );
  }
  return {
    kind: "s3",
    location: { bucket, prefix: prefix ? `${prefix}/` : "" },
    endpoint: s3EndpointSetting(env),
    region: s3RegionSetting(env),
    credentials: awsCredentialsSetting(env),
  };
}

function s3EndpointSetting(env: Environment): string | undefined {
  const raw = env.GENVIDEO_S3_ENDPOINT?.trim();
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.pathname !== "/" ||
    url.search ||
    url.hash ||
    url.username
  ) {
    throw new ConfigError(
      `GENVIDEO_S3_ENDPOINT must be an http(s) origin such as https://minio.example.com:9000, got "${raw}"`,
    );
  }
  return url.origin;
}

/** GENVIDEO_S3_REGION, else the AWS SDKs' own variables, else us-east-1 (what most S3-compatible services expect). */
function s3RegionSetting(env: Environment): string {
  const name = ["GENVIDEO_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"].find((key) => env[key]?.trim());
  const raw = name ? (env[name] ?? "").trim() : "us-east-1";
  if (!/^[a-z0-9-]{1,64}$/.test(raw)) {
    throw new ConfigError(`${name} must be a region name such as eu-west-1 or auto, got "${raw}"`);
  }
  return raw;
}

function awsCredentialsSetting(env: Environment): S3Credentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  for (const [name, value] of [
    ["AWS_ACCESS_KEY_ID", accessKeyId],
    ["AWS_SECRET_ACCESS_KEY", secretAccessKey],
  ] as const) {
    if (!value) {
      throw new ConfigError(
        `${name} must be set: GENVIDEO_VIDEO_STORAGE=s3://... signs with the AWS credentials`,
      );
    }
  }
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return {
    accessKeyId: accessKeyId as string,
    secretAccessKey: secretAccessKey as string,
    ...(sessionToken ? { sessionToken } : {}),
  };
}

/** The URL clients reach the server at when GENVIDEO_PUBLIC_URL is not set. */
export function defaultPublicUrl(host: string, port: number): string {
  // A wildcard address is where the server listens, not an address anyone can reach it at.
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

function databaseSetting(env: Environment, baseDirectory: string, dataDir: string): DatabaseLocation {
  const raw = env.GENVIDEO_DATABASE_URL?.trim();
  if (!raw) return { kind: "sqlite", path: resolve(dataDir, "genvideo.db") };
  if (/^postgres(ql)?:\/\//i.test(raw)) return postgresSetting(raw);
  const match = /^sqlite:(.+)$/i.exec(raw);
  if (!match?.[1]) {
    throw new ConfigError(
      `GENVIDEO_DATABASE_URL must be sqlite:<path> (for example sqlite:./.genvideo/genvideo.db) or postgres://user:password@host:port/database, got "${redact(raw)}"`,
    );
  }
  // Accept sqlite:./x.db, sqlite:/abs/x.db and the URL-ish sqlite:///abs/x.db.
  const path = match[1].startsWith("///") ? match[1].slice(2) : match[1];
  if (path === ":memory:") return { kind: "sqlite", path };
  return { kind: "sqlite", path: isAbsolute(path) ? path : resolve(baseDirectory, path) };
}

function postgresSetting(raw: string): DatabaseLocation {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `GENVIDEO_DATABASE_URL must be postgres://user:password@host:port/database, got "${redact(raw)}"`,
    );
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new ConfigError(
      `GENVIDEO_DATABASE_URL must name a host and a database (postgres://user:password@host:port/database), got "${redact(raw)}"`,
    );
  }
  return { kind: "postgres", url: raw, redactedUrl: redact(raw) };
}

/** A database URL fit for logs and error lines: never its password. */
function redact(raw: string): string {
  return raw.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

function roleSetting(env: Environment, database: DatabaseLocation): ServerRole {
  const raw = env.GENVIDEO_ROLE?.trim().toLowerCase();
  if (!raw) return "all";
  if (!ROLES.includes(raw as ServerRole)) {
    throw new ConfigError(`GENVIDEO_ROLE must be all, api or worker, got "${env.GENVIDEO_ROLE}"`);
  }
  if (raw !== "all" && database.kind === "sqlite") {
    throw new ConfigError(
      `GENVIDEO_ROLE=${raw} needs PostgreSQL (GENVIDEO_DATABASE_URL=postgres://...): on SQLite one process does everything (role all)`,
    );
  }
  return raw as ServerRole;
}

function publicUrlSetting(env: Environment): string | undefined {
  const raw = env.GENVIDEO_PUBLIC_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`GENVIDEO_PUBLIC_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
    throw new ConfigError(
      `GENVIDEO_PUBLIC_URL must be an http(s) URL without query or credentials, got "${raw}"`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

function bootstrapApiKeySetting(env: Environment): string | undefined {
  const raw = env.GENVIDEO_BOOTSTRAP_API_KEY;
  if (raw === undefined || raw === "") return undefined;
  if (!/^[A-Za-z0-9_-]{20,255}$/.test(raw)) {
    // The value is a secret: say what is wrong with it, never echo it.
    throw new ConfigError(
      `GENVIDEO_BOOTSTRAP_API_KEY must be 20 to 255 characters of A-Z, a-z, 0-9, _ and - (got ${raw.length} characters)`,
    );
  }
  return raw;
}

function bootstrapWebhookSecretSetting(env: Environment): string | undefined {
  const raw = env.GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET;
  if (raw === undefined || raw === "") return undefined;
  const body = raw.startsWith("whsec_") ? raw.slice("whsec_".length) : undefined;
  const bytes =
    body !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(body) && body.length % 4 === 0
      ? Buffer.from(body, "base64").length
      : 0;
  if (bytes < 16 || bytes > 64) {
    throw new ConfigError(
      "GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET must be whsec_ followed by the standard base64 of 16 to 64 bytes",
    );
  }
  return raw;
}

function timeScaleSetting(env: Environment): number {
  const raw = env.GENVIDEO_TIME_SCALE;
  if (raw === undefined || raw.trim() === "") return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1_000_000) {
    throw new ConfigError(`GENVIDEO_TIME_SCALE must be a number above 0 and at most 1000000, got "${raw}"`);
  }
  return value;
}

function rateLimitSetting(env: Environment): RateLimitSettings {
  const defaults = {
    enabled: true,
    createsPerMinute: RATE_LIMIT_CREATES_PER_MINUTE,
    readsPerMinute: RATE_LIMIT_STATUS_READS_PER_MINUTE,
  };
  const raw = env.GENVIDEO_RATE_LIMITS?.trim().toLowerCase();
  if (!raw || raw === "on" || raw === "default") return defaults;
  if (raw === "off") return { ...defaults, enabled: false };
  // `creates=60,reads=600` tunes the buckets (per API key, per minute).
  const settings = { ...defaults };
  for (const part of raw.split(",")) {
    const match = /^\s*(creates|reads)\s*=\s*(\d+)\s*$/.exec(part);
    const value = match ? Number(match[2]) : 0;
    if (!match || value < 1 || value > 1_000_000) {
      throw new ConfigError(
        `GENVIDEO_RATE_LIMITS must be on, off or creates=<n>,reads=<n> (per minute), got "${env.GENVIDEO_RATE_LIMITS}"`,
      );
    }
    if (match[1] === "creates") settings.createsPerMinute = value;
    else settings.readsPerMinute = value;
  }
  return settings;
}

function logLevelSetting(env: Environment): LogLevel {
  const raw = (env.GENVIDEO_LOG_LEVEL ?? env.LOG_LEVEL)?.trim().toLowerCase();
  if (!raw) return "info";
  if (!LOG_LEVELS.includes(raw as LogLevel)) {
    throw new ConfigError(`GENVIDEO_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${raw}"`);
  }
  return raw as LogLevel;
}

function booleanSetting(env: Environment, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (true/false), got "${env[name]}"`);
}

/** A duration by the engine's `parseDuration` rules (`7d`, `12h`, `30m`, `90s`, `500ms`, `1h30m`, plain seconds); in ms. */
function durationSetting(env: Environment, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  let value: number | undefined;
  try {
    value = parseDuration(raw);
  } catch {
    value = undefined;
  }
  if (value === undefined || value < min || value > max) {
    throw new ConfigError(
      `${name} must be a duration like 7d, 12h, 30m or 90s, from ${formatDuration(min)} to ${formatDuration(max)}, got "${raw}"`,
    );
  }
  return value;
}

function formatDuration(milliseconds: number): string {
  if (milliseconds % DAY_MS === 0) return `${milliseconds / DAY_MS}d`;
  if (milliseconds % SECOND_MS === 0) return `${milliseconds / SECOND_MS}s`;
  return `${milliseconds}ms`;
}

function integerSetting(env: Environment, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
