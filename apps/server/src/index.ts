/**
 * The reference server as a library: what the CLI is made of, for embedding
 * it and for benchmarks (the renderer and the video storage it writes to among
 * them). Exported by name; `index.test.ts` pins the run-time exports.
 */
export { openServiceClock, type ServiceClock } from "./clock/service-clock.js";
export { type NodeServer, startNodeServer } from "./composition/node-server.js";
export {
  ConfigError,
  type DatabaseLocation,
  defaultPublicUrl,
  invocationDirectory,
  type LogLevel,
  loadConfig,
  type MetricsSettings,
  type PostgresSettings,
  type RateLimitSettings,
  type ServerConfig,
  type ServerRole,
  type TracingSettings,
  type VideoStorageSetting,
} from "./config.js";
export { createLogger, type Logger } from "./logging/logger.js";
export { createSyntheticRenderer, type SyntheticRendererOptions } from "./renderer/synthetic-renderer.js";
export { createMigrator, MIGRATIONS, migrateToLatest, pendingMigrations } from "./store/migrations.js";
export { openSqliteKysely, openSqliteStore, type SqliteStoreHandle } from "./store/sqlite-store.js";
export type { Database } from "./store/tables.js";
export { LocalVideoStorage, type LocalVideoStorageOptions } from "./video/local-video-storage.js";
