/**
 * The runtimes the SDK promises, each from its npm package, installed once into a cache
 * outside the clone (like .ci/run's toolchain) and reused while the pinned list is the same.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { npmArgs, runOk } from "./commands.js";

/** Majors, not exact versions: a run picks up their fixes, the cache key changes only here. */
const RUNTIME_PACKAGES = ["bun@1", "deno@2", "miniflare@4", "esbuild@0.28"];
/** Node 22 is its own prefix: the `node` package of Node 24's toolchain would clash with it. */
const NODE_22_PACKAGES = ["node@22"];

export interface Runtimes {
  /** Node 24: the Node running this suite. */
  node24: string;
  node22: string;
  bun: string;
  deno: string;
  /** Directory whose node_modules holds miniflare (workerd) and esbuild. */
  workerTools: string;
}

function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return process.env.GENVIDEO_RUNTIMES_DIR || join(base, "genvideo-runtimes");
}

async function ensurePrefix(directory: string, packages: readonly string[]): Promise<void> {
  const stamp = join(directory, "installed.json");
  const wanted = JSON.stringify(packages);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return;
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "package.json"), "{}\n");
  await runOk("npm", npmArgs("install", ...packages), { cwd: directory });
  writeFileSync(stamp, wanted);
}

export async function ensureRuntimes(): Promise<Runtimes> {
  const root = cacheRoot();
  const tools = join(root, "tools");
  const node22 = join(root, "node22");
  await Promise.all([ensurePrefix(tools, RUNTIME_PACKAGES), ensurePrefix(node22, NODE_22_PACKAGES)]);
  const runtimes: Runtimes = {
    node24: process.execPath,
    node22: join(node22, "node_modules/.bin/node"),
    bun: join(tools, "node_modules/.bin/bun"),
    deno: join(tools, "node_modules/.bin/deno"),
    workerTools: tools,
  };
  for (const [name, path] of Object.entries(runtimes)) {
    if (!existsSync(path)) throw new Error(`${name} is missing at ${path} after its npm install`);
  }
  return runtimes;
}
