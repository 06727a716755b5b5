/**
 * A real npm registry on loopback: Verdaccio, installed once from npm into a cache outside the
 * clone (its 300-odd dependencies stay out of the workspace), started on a free port with storage
 * of its own for each run. `@genvideo/*` exists only as published here; everything else is
 * proxied from npm, as the public registry would serve it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { npmArgs, runOk } from "../../ecosystem/support/commands.js";

const VERDACCIO = "verdaccio@6.10";
/** Verdaccio 6.10 pulls in a node-fetch 2 prerelease that does not install; 2.7.0 is its last release. */
const OVERRIDES = { "node-fetch": "2.7.0" };

export interface Registry {
  url: string;
  /** A token of a user registered for this run, for the publishing side's .npmrc. */
  token: string;
  log(): string;
  stop(): Promise<void>;
}

function cacheDirectory(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(process.env.GENVIDEO_RUNTIMES_DIR || join(base, "genvideo-runtimes"), "verdaccio");
}

/** Installs Verdaccio into the cache unless the same version and overrides are already there. */
async function ensureVerdaccio(): Promise<string> {
  const directory = cacheDirectory();
  const manifest = `${JSON.stringify({ private: true, overrides: OVERRIDES }, null, 2)}\n`;
  const stamp = join(directory, "installed.json");
  const wanted = JSON.stringify({ package: VERDACCIO, overrides: OVERRIDES });
  const bin = join(directory, "node_modules/.bin/verdaccio");
  if (!(existsSync(stamp) && readFileSync(stamp, "utf8") === wanted && existsSync(bin))) {
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "package.json"), manifest);
    await runOk("npm", npmArgs("install", VERDACCIO), { cwd: directory });
    writeFileSync(stamp, wanted);
  }
  return bin;
}

function config(storage: string): string {
  return `storage: ${storage}
auth:
  htpasswd:
    file: ${join(storage, "htpasswd")}
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 60s
packages:
  # Ours are never looked up upstream: a release that failed to publish one must not find npm's.
  "@genvideo/*":
    access: $all
    publish: $authenticated
  "**":
    access: $all
    publish: $authenticated
    proxy: npmjs
server:
  keepAliveTimeout: 60
log: { type: stdout, format: json, level: warn }
`;
}

/** Starts Verdaccio with its storage under `directory` and registers a throwaway publisher. */
export async function startRegistry(directory: string): Promise<Registry> {
  const bin = await ensureVerdaccio();
  mkdirSync(directory, { recursive: true });
  const configPath = join(directory, "config.yaml");
  writeFileSync(configPath, config(join(directory, "storage")));
  const listen = `127.0.0.1:${await freePort()}`;
  const child: ChildProcess = spawn(bin, ["--config", configPath, "--listen", listen], {
    cwd: directory,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      // Its first log line says it listens: `http address - http://127.0.0.1:PORT/ - verdaccio/6...`.
      if (output.includes(`http address - http://${listen}/`)) resolve(`http://${listen}`);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`verdaccio exited with ${code}\n${output}`)));
  });
  try {
    const token = await registerUser(url);
    return { url, token, log: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** How long Verdaccio may take from logging its address to accepting connections on it. */
const READY_WITHIN_MS = 15_000;

/**
 * Verdaccio logs its address before its socket accepts: one CI run's first request was refused
 * (ECONNREFUSED). Connection errors are retried until it answers, within a bound.
 */
async function fetchOnceListening(url: string, init: RequestInit): Promise<Response> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** What `npm adduser` does: npm asks for a login even where anyone may publish. */
async function registerUser(url: string): Promise<string> {
  const name = "release-rehearsal";
  const response = await fetchOnceListening(`${url}/-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: `rehearsal-${process.pid}-${Date.now()}` }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token) {
    throw new Error(`registering a user on ${url} answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.token;
}

/** A port free a moment ago: Verdaccio takes a port number, not 0, and says nothing else of it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
