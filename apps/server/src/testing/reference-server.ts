/// <reference types="node" />
/**
 * Starts the server the way users do, `genvideo-server start`, in a child
 * process on a loopback port the OS picks (PORT=0), and reads the bound URL
 * from the startup log line. Inside this repository's tests (this module loaded
 * from its TypeScript source) the CLI runs from its sources too (no build step,
 * always current), unless GENVIDEO_TEST_SERVER=dist asks for the built
 * `dist/cli.js`; loaded from the build (`@genvideo/server/testing` outside
 * vitest), it always runs the built CLI.
 *
 * The server's own tests, msw's parity tests and the SDK's end-to-end tests
 * all start the server through this module (`@genvideo/server/testing`). It
 * spawns the CLI by path and imports none of the server's sources, so the
 * packages that import it never typecheck those sources under their settings.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ProcessResult, runProcess } from "./process.js";

const serverRoot = fileURLToPath(new URL("../..", import.meta.url));
const hooks = fileURLToPath(new URL("./source-hooks.mjs", import.meta.url));
// dist/testing/ and src/testing/ are equally deep, so serverRoot holds for both.
const fromSource = import.meta.url.endsWith(".ts");

// Customers' suites that start the server want somewhere for its webhooks to land.
export { freeLoopbackPort, type LoopbackServer, listenOnLoopback, serveOnLoopback } from "./loopback.js";
export { type ProcessResult, runProcess } from "./process.js";
export { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

export const TEST_API_KEY = "test_key_0123456789abcdefghij";
export const TEST_WEBHOOK_SECRET: string = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;

/** The node arguments that run the CLI, from source or from dist. */
export function cliCommand(): string[] {
  if (process.env.GENVIDEO_TEST_SERVER === "dist" || !fromSource) return [join(serverRoot, "dist/cli.js")];
  return ["--conditions=@genvideo/source", "--import", hooks, join(serverRoot, "src/cli.ts")];
}

export function temporaryDataDir(): string {
  return mkdtempSync(join(tmpdir(), "genvideo-test-"));
}

export interface RunningServer {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** What it wrote to stdout: the structured log. */
  stdout(): string;
  /** What it wrote to stderr: the lines for the person at the terminal. */
  stderr(): string;
  /** Lines of stdout that are JSON log records. */
  logRecords(): Record<string, unknown>[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Authenticated JSON helper with the test key. */
  api(path: string, init?: RequestInit & { json?: unknown; key?: string }): Promise<Response>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown at all, as in a crash. */
  kill(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  dataDir?: string;
  /** Without the bootstrap key: exercises first-start key printing. */
  bootstrap?: boolean;
  /**
   * How long the start may take before it fails with the output so far (default 45 s: a start
   * takes about a second, but a machine running a whole test suite on two cores can stall one
   * for many; this only bounds how long a broken start takes to report).
   */
  startTimeoutMs?: number;
  /** A built CLI to run (a path to its `cli.js`) instead of the one `cliCommand()` picks. */
  cli?: string;
  /**
   * Start the server in a session of its own, as a server started from another terminal is:
   * on Linux with scheduler autogroups it then gets its own share of the CPU rather than a
   * part of the test runner's (its renders' priority is lowered relative to the server only).
   */
  ownSession?: boolean;
  /**
   * Run the server inside this Linux network namespace (`ip netns exec`, as
   * root): tests that cut a process off the network.
   */
  networkNamespace?: string;
}

export function serverEnvironment(
  dataDir: string,
  extra: Record<string, string> = {},
  bootstrap = true,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    // Node caches what it compiled (types stripped too): later spawns start in half the time.
    NODE_COMPILE_CACHE: join(tmpdir(), "genvideo-test-compile-cache"),
    PORT: "0",
    HOST: "127.0.0.1",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_LOG_LEVEL: "info",
    ...(bootstrap
      ? { GENVIDEO_BOOTSTRAP_API_KEY: TEST_API_KEY, GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET }
      : {}),
    ...extra,
  };
  return env;
}

/** Servers started and not yet exited: a test that fails or times out before stop() must not leave one running. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? temporaryDataDir();
  const startTimeoutMs = options.startTimeoutMs ?? 45_000;
  const command = options.cli === undefined ? cliCommand() : [options.cli];
  const node = [process.execPath, ...command, "start"];
  // `ip netns exec` execs node in place: the child's pid is the server's, signals reach it.
  const argv = options.networkNamespace ? ["ip", "netns", "exec", options.networkNamespace, ...node] : node;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: dataDir,
    env: serverEnvironment(dataDir, options.env, options.bootstrap ?? true),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.ownSession ?? false,
  });
  let output = "";
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  running.add(child);
  void exited.then(() => running.delete(child));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // The caller never gets a handle to stop it: stop it here.
      child.kill("SIGKILL");
      reject(new Error(`server did not start in ${startTimeoutMs / 1000} s:\n${output}`));
    }, startTimeoutMs);
    // Started means the "listening" record on stdout and the start banner on stderr, whose last
    // line is the callbacks notice: the two pipes are read apart, so either can arrive first.
    const check = () => {
      const match =
        /"msg":"listening".*?"url":"([^"]+)"/.exec(stdout) ??
        /"url":"([^"]+)".*?"msg":"listening"/.exec(stdout);
      if (match?.[1] && /^genvideo-server: insecure callbacks .*\n/m.test(stderr)) {
        clearTimeout(timer);
        // Started once: a long test's log must not be searched again at every chunk.
        child.stdout?.off("data", check);
        child.stderr?.off("data", check);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });

  const server: RunningServer = {
    url,
    dataDir,
    child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    logRecords: () =>
      stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    fetch: (path, init) => fetch(new URL(path, url), init),
    api(path, init = {}) {
      const { json, key, headers, ...rest } = init;
      return fetch(new URL(path, url), {
        ...rest,
        headers: {
          authorization: `Bearer ${key ?? TEST_API_KEY}`,
          ...(json !== undefined ? { "content-type": "application/json" } : {}),
          ...(headers as Record<string, string> | undefined),
        },
        ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? "POST" } : {}),
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
  return server;
}

export type CliResult = ProcessResult;

/** Runs one CLI command to completion against a data directory. */
export function runCli(
  args: string[],
  dataDir: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  return runProcess(process.execPath, [...cliCommand(), ...args], {
    cwd: dataDir,
    env: serverEnvironment(dataDir, env, false),
  });
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}
