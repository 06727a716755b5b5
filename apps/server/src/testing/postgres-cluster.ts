/// <reference types="node" />
/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a
 * temporary directory, `postgres` on 127.0.0.1 at a free port, no Unix
 * socket, stopped and deleted at the end. initdb refuses to run as root, so
 * when this process is root (CI) the cluster runs as `nobody`. Exported as
 * `@genvideo/server/testing/postgres` (the PostgreSQL suites' global setup and
 * the dashboard's browser tests, the scale-out benchmark).
 *
 * Binaries are looked up in GENVIDEO_POSTGRES_BIN, then /usr/local/bin,
 * /usr/lib/postgresql/<version>/bin (Debian's `postgresql` package), then PATH.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import pg from "pg";
import { freeLoopbackPort } from "./loopback.js";

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser on the default database. */
  url: string;
  /** A new empty database on the cluster; its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Durable commits (benchmarks); tests turn fsync off for speed. Default false. */
  durable?: boolean;
  maxConnections?: number;
  /**
   * More addresses to listen on beside 127.0.0.1, and the networks (CIDR)
   * trusted to connect through them: tests that reach the cluster from a
   * network namespace of their own.
   */
  alsoListen?: { addresses: readonly string[]; clients: readonly string[] };
}

/** Where `initdb` and `postgres` are, or undefined when this machine has no PostgreSQL server. */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates: string[] = [];
  if (env.GENVIDEO_POSTGRES_BIN) candidates.push(env.GENVIDEO_POSTGRES_BIN);
  candidates.push("/usr/local/bin");
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(join(debian, version, "bin"));
  }
  candidates.push(...(env.PATH ?? "").split(delimiter).filter(Boolean));
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres")));
}

/** How to enable the PostgreSQL suites, in one line. */
export const POSTGRES_HOW_TO =
  "install PostgreSQL 15+ server binaries (Debian: apt-get install postgresql) or set GENVIDEO_POSTGRES_BIN to the directory holding initdb and postgres";

export async function startPostgresCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBinaries();
  if (!bin) throw new Error(`no PostgreSQL server binaries found: ${POSTGRES_HOW_TO}`);
  const owner = clusterOwner();
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-pg-"));
  // The cluster's user must own its directory; the temp parent is world-writable.
  if (owner) execFileSync("chown", [`${owner.uid}:${owner.gid}`, dataDir]);
  chmodSync(dataDir, 0o700);
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  try {
    execFileSync(
      join(bin, "initdb"),
      ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
      { stdio: "pipe", ...asOwner },
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed: ${stderr || String(error)}`);
  }
  const port = await freeLoopbackPort();
  const alsoListen = options.alsoListen ?? { addresses: [], clients: [] };
  if (alsoListen.clients.length > 0)
    appendFileSync(
      join(dataDir, "pg_hba.conf"),
      alsoListen.clients.map((network) => `host all all ${network} trust\n`).join(""),
    );
  const settings = {
    listen_addresses: ["127.0.0.1", ...alsoListen.addresses].join(","),
    port: String(port),
    unix_socket_directories: "",
    max_connections: String(options.maxConnections ?? 300),
    shared_buffers: "128MB",
    fsync: options.durable ? "on" : "off",
    synchronous_commit: options.durable ? "on" : "off",
    full_page_writes: options.durable ? "on" : "off",
    log_min_messages: "fatal",
  };
  const args = [
    "-D",
    dataDir,
    ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ];
  const child = spawn(join(bin, "postgres"), args, { stdio: ["ignore", "ignore", "pipe"], ...asOwner });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await waitUntilAccepting(url, child, () => stderr);
  } catch (error) {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  let counter = 0;
  let stopped: Promise<void> | undefined;
  return {
    url,
    createDatabase(name = `genvideo_${process.pid}_${++counter}_${Date.now().toString(36)}`) {
      return createDatabaseOn(url, name);
    },
    stop() {
      stopped ??= stopChild(child).then(() => rmSync(dataDir, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/** Creates an empty database `name` on the server `url` points at (a role that may create databases); its URL. */
export async function createDatabaseOn(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.href;
}

/** The PostgreSQL a suite tests against: its superuser URL and how to let it go. */
export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Whether a suite can test against PostgreSQL here: GENVIDEO_TEST_POSTGRES_URL
 * names a server, or this machine has the binaries for a throwaway cluster.
 * When not, it warns once how to enable the suite (which then skips), except
 * under CI=true, where it throws: a suite never skips silently in CI.
 */
export function postgresTestable(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.GENVIDEO_TEST_POSTGRES_URL?.trim() || findPostgresBinaries(env)) return true;
  if (env.CI === "true")
    throw new Error(`CI=true but no PostgreSQL server to test against: ${POSTGRES_HOW_TO}`);
  console.warn(`PostgreSQL suites skipped: ${POSTGRES_HOW_TO}.`);
  return false;
}

/**
 * The PostgreSQL a test suite runs against: the server GENVIDEO_TEST_POSTGRES_URL
 * names (a role that may create databases), else a throwaway cluster; null
 * when there is none (see `postgresTestable`).
 */
export async function postgresForTests(env: NodeJS.ProcessEnv = process.env): Promise<TestPostgres | null> {
  if (!postgresTestable(env)) return null;
  const external = env.GENVIDEO_TEST_POSTGRES_URL?.trim();
  if (external) return { url: external, stop: async () => undefined };
  return startPostgresCluster();
}

/** Root may not run a cluster: `nobody` does. Undefined when this process is not root. */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "nobody"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "nobody"]).toString().trim());
  return { uid, gid };
}

async function waitUntilAccepting(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}: ${stderr()}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Fast shutdown (SIGINT): sessions end, no checkpoint wait beyond the shutdown one. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGQUIT"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGINT");
  });
}
