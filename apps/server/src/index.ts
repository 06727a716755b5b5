/**
 * The reference server as a library: what the CLI is made of, for embedding
 * it, for benchmarks and for other stores that reuse the queries.
 */
export { openServiceClock, type ServiceClock } from "./clock/service-clock.js";
export * from "./config.js";
export { type NodeHost, startNodeHost } from "./host/node-host.js";
export { createLogger, type Logger } from "./logging/logger.js";
export { createMigrator, MIGRATIONS, migrateToLatest, pendingMigrations } from "./store/migrations.js";
export { openSqliteKysely, openSqliteStore, type SqliteStoreHandle } from "./store/sqlite-store.js";
export type { Database } from "./store/tables.js";
