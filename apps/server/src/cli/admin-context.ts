/**
 * What an admin command works on: the same database as the server (it may be
 * running: SQLite's WAL and busy timeout let both write), the service clock
 * and the engine's admin service, so the CLI and the HTTP API share one set of
 * rules for keys, credits and webhooks.
 */
import { type AdminService, createAdminService } from "@genvideo/engine";
import { openServiceClock, type ServiceClock } from "../clock/service-clock.js";
import type { ServerConfig } from "../config.js";
import { openSqliteStore } from "../store/sqlite-store.js";

export interface AdminContext {
  admin: AdminService;
  clock: ServiceClock;
}

export async function withAdminContext<T>(
  config: ServerConfig,
  work: (context: AdminContext) => Promise<T>,
): Promise<T> {
  const { store, db } = await openSqliteStore(config.database.path);
  try {
    const clock = await openServiceClock(db, config.timeScale);
    return await work({ admin: createAdminService(store, clock), clock });
  } finally {
    await store.close();
  }
}
