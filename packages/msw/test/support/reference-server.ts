/// <reference types="node" />
/**
 * Starts the reference server the way its own tests do: `genvideo-server
 * start` from its TypeScript sources (no build needed, always the current
 * code), on a loopback port the OS picks, with a fresh data directory.
 * Spawned by path rather than imported, so this package's typecheck never
 * takes in the server's sources.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const serverRoot = fileURLToPath(new URL("../../../../apps/server/", import.meta.url));
const command = [
  "--conditions=@genvideo/source",
  "--import",
  join(serverRoot, "test/support/source-hooks.mjs"),
  join(serverRoot, "src/cli.ts"),
];

export const REFERENCE_API_KEY: string = "parity_key_0123456789abcdefghij";
export const REFERENCE_WEBHOOK_SECRET: string = `whsec_${btoa(String.fromCharCode(...new Uint8Array(24).fill(7)))}`;

export interface ReferenceServer {
  url: string;
  dataDir: string;
  /** Runs one CLI command against the server's data directory; resolves with its stdout. */
  cli(args: string[]): Promise<string>;
  stop(): Promise<number | null>;
}

function environment(dataDir: string, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_COMPILE_CACHE: join(tmpdir(), "genvideo-test-compile-cache"),
    PORT: "0",
    HOST: "127.0.0.1",
    GENVIDEO_DATA_DIR: dataDir,
    GENVIDEO_BOOTSTRAP_API_KEY: REFERENCE_API_KEY,
    GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET: REFERENCE_WEBHOOK_SECRET,
    ...extra,
  };
}

function run(args: string[], dataDir: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...command, ...args], {
    cwd: dataDir,
    env: environment(dataDir, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export async function startReferenceServer(env: Record<string, string>): Promise<ReferenceServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-msw-parity-"));
  const child = run(["start"], dataDir, env);
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 20 s:\n${output}`)), 20_000);
    child.stdout?.on("data", () => {
      const match =
        /"msg":"listening".*?"url":"([^"]+)"/.exec(output) ??
        /"url":"([^"]+)".*?"msg":"listening"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    dataDir,
    cli: (args) =>
      new Promise((resolve, reject) => {
        const cli = run(args, dataDir, env);
        let stdout = "";
        let stderr = "";
        cli.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
        cli.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
        cli.once("exit", (code) =>
          code === 0
            ? resolve(stdout)
            : reject(new Error(`genvideo-server ${args.join(" ")} exited ${code}: ${stderr}`)),
        );
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
