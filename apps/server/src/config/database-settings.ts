/**
 * Where the server keeps its state, and the settings that only mean something with PostgreSQL:
 * the role a process plays and its connections.
 */
import { isAbsolute, resolve } from "node:path";
import { boolean, ConfigError, integer, type Parser } from "./parsers.js";
import { readSettings, type SettingValues, setting } from "./setting.js";

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

/** GENVIDEO_DATABASE_URL as written: a SQLite path not yet resolved, or a PostgreSQL URL. */
const databaseUrl: Parser<DatabaseLocation> = (raw) => {
  const trimmed = raw.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return postgresUrl(trimmed);
  const match = /^sqlite:(.+)$/i.exec(trimmed);
  if (!match?.[1]) {
    throw new ConfigError(
      `GENVIDEO_DATABASE_URL must be sqlite:<path> (for example sqlite:./.genvideo/genvideo.db) or postgres://user:password@host:port/database, got "${redact(trimmed)}"`,
    );
  }
  // Accept sqlite:./x.db, sqlite:/abs/x.db and the URL-ish sqlite:///abs/x.db.
  return { kind: "sqlite", path: match[1].startsWith("///") ? match[1].slice(2) : match[1] };
};

function postgresUrl(raw: string): DatabaseLocation {
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

const role: Parser<ServerRole> = (raw, name) => {
  const value = raw.trim().toLowerCase();
  if (!ROLES.includes(value as ServerRole))
    throw new ConfigError(`${name} must be all, api or worker, got "${raw}"`);
  return value as ServerRole;
};

export const DATABASE_SETTINGS = {
  database: setting<DatabaseLocation, undefined>({
    name: "GENVIDEO_DATABASE_URL",
    default: undefined,
    parse: databaseUrl,
    description:
      "sqlite:<path> or postgres://user:password@host:port/db; SQLite in the data directory by default.",
  }),
  role: setting<ServerRole>({
    name: "GENVIDEO_ROLE",
    default: "all",
    parse: role,
    description: "api or worker split the work between processes; PostgreSQL only.",
  }),
  poolSize: setting({
    name: "GENVIDEO_PG_POOL_SIZE",
    default: 10,
    parse: integer(1, 1000),
    description: "PostgreSQL connections per process for queries (a worker opens one more to LISTEN).",
  }),
  listen: setting({
    name: "GENVIDEO_PG_LISTEN",
    default: true,
    parse: boolean,
    description: "LISTEN for wake-up hints; off for PgBouncer in transaction mode (workers poll instead).",
  }),
};

export interface DatabaseSettings {
  database: DatabaseLocation;
  role: ServerRole;
  postgres: PostgresSettings;
}

/** The database settings; relative SQLite paths resolve against `baseDirectory`. */
export function readDatabaseSettings(
  env: Record<string, string | undefined>,
  baseDirectory: string,
  dataDir: string,
): DatabaseSettings {
  const values: SettingValues<typeof DATABASE_SETTINGS> = readSettings(env, DATABASE_SETTINGS);
  const database = sqlitePathResolved(values.database, baseDirectory, dataDir);
  if (values.role !== "all" && database.kind === "sqlite") {
    throw new ConfigError(
      `GENVIDEO_ROLE=${values.role} needs PostgreSQL (GENVIDEO_DATABASE_URL=postgres://...): on SQLite one process does everything (role all)`,
    );
  }
  return { database, role: values.role, postgres: { poolSize: values.poolSize, listen: values.listen } };
}

function sqlitePathResolved(
  database: DatabaseLocation | undefined,
  baseDirectory: string,
  dataDir: string,
): DatabaseLocation {
  if (database === undefined) return { kind: "sqlite", path: resolve(dataDir, "genvideo.db") };
  if (database.kind === "postgres" || database.path === ":memory:" || isAbsolute(database.path))
    return database;
  return { kind: "sqlite", path: resolve(baseDirectory, database.path) };
}
