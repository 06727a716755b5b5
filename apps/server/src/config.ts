/**
 * Reads the server's settings from the environment. Each setting is an entry of data (name,
 * default, parser, description) in `config/`; the server README's "Settings" table is the list
 * of record. A bad value stops the start with one line naming the setting.
 */
import { resolve } from "node:path";
import { type DatabaseSettings, readDatabaseSettings } from "./config/database-settings.js";
import { readVideoStorage, type VideoStorageSetting } from "./config/s3-settings.js";
import { type Environment, readSettings, type SettingValues } from "./config/setting.js";
import { SERVER_SETTINGS } from "./config/settings.js";
import { readTelemetrySettings, type TelemetrySettings } from "./config/telemetry-settings.js";

export type { DatabaseLocation, PostgresSettings, ServerRole } from "./config/database-settings.js";
export { ConfigError, type RateLimitSettings } from "./config/parsers.js";
export type { VideoStorageSetting } from "./config/s3-settings.js";
export type { MetricsSettings, TracingSettings } from "./config/telemetry-settings.js";
export type { LogLevel } from "./logging/log-level.js";

/**
 * The settings as the server uses them: each entry of `SERVER_SETTINGS` under its key, with the
 * data directory absolute (relative settings resolve against where the user ran the command),
 * the database settings, and the video storage with its S3 settings.
 */
export type ServerConfig = Omit<SettingValues<typeof SERVER_SETTINGS>, "videoStorage"> &
  DatabaseSettings &
  TelemetrySettings & { videoStorage: VideoStorageSetting };

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
  const values = readSettings(env, SERVER_SETTINGS);
  const dataDir = resolve(baseDirectory, values.dataDir);
  return {
    ...values,
    dataDir,
    ...readDatabaseSettings(env, baseDirectory, dataDir),
    videoStorage: readVideoStorage(env, values.videoStorage, values.videoUrlTtlSeconds, values.timeScale),
    ...readTelemetrySettings(env, values.port),
  };
}

/** The URL clients reach the server at when GENVIDEO_PUBLIC_URL is not set. */
export function defaultPublicUrl(host: string, port: number): string {
  // A wildcard address is where the server listens, not an address anyone can reach it at.
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}
