/**
 * What an admin command works on: the same database as the server (it may be
 * running: SQLite's WAL and busy timeout let both write), the service clock
 * and the engine's admin service, so the CLI and the HTTP API share one set of
 * rules for keys, credits and webhooks.
 */
import { type AccountRecord, type AdminService, createAdminService } from "@genvideo/engine";
import type { Kysely } from "kysely";
import type { ServiceClock } from "../clock/service-clock.js";
import { openServerDatabase } from "../composition/server-database.js";
import type { ServerConfig } from "../config.js";
import type { Database } from "../store/tables.js";
import { type CliIo, CommandError } from "./command-line.js";
import { cliInvocation } from "./invocation.js";

export interface AdminContext {
  admin: AdminService;
  clock: ServiceClock;
  /** The server's tables beyond the engine's (dashboard sign-in links). */
  db: Kysely<Database>;
  config: ServerConfig;
}

export async function withAdminContext<T>(
  config: ServerConfig,
  work: (context: AdminContext) => Promise<T>,
): Promise<T> {
  const database = await openServerDatabase(config, {
    server: false,
    applicationName: `cli-${process.pid}`,
  });
  try {
    const { store, clock, db } = database;
    return await work({ admin: createAdminService(store, clock), clock, db, config });
  } finally {
    await database.close();
  }
}

/** The account an admin command names, or an error that says how to list the accounts there are. */
export async function requireAccount(admin: AdminService, name: string, io: CliIo): Promise<AccountRecord> {
  const account = await admin.getAccount(name);
  if (!account)
    throw new CommandError(`no account named "${name}" (see ${cliInvocation(io.env)} accounts list)`);
  return account;
}
