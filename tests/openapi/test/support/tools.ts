/// <reference types="node" />
/** Running the customers' tools from this package's node_modules, and loopback helpers. */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const packageRoot: string = fileURLToPath(new URL("../..", import.meta.url));

/** A tool's executable as npm installed it (`node_modules/.bin/<name>`). */
export function bin(name: string): string {
  return join(packageRoot, "node_modules/.bin", name);
}

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a tool to completion; never throws on a non-zero exit (the caller asserts on it). */
export function runTool(name: string, args: string[], options: { cwd?: string } = {}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin(name), args, {
      cwd: options.cwd ?? packageRoot,
      env: {
        ...process.env,
        // No telemetry and no update check from a test run.
        REDOCLY_TELEMETRY: "off",
        REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
        NO_UPDATE_NOTIFIER: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A scratch directory inside this package (so that generated code resolves `zod` and
 * `openapi-fetch` from its node_modules), removed by `remove()`.
 */
export function scratchDirectory(prefix: string): {
  path: string;
  write(name: string, text: string): string;
  remove(): void;
} {
  const parent = join(packageRoot, ".generated");
  mkdirSync(parent, { recursive: true });
  const path = mkdtempSync(join(parent, `${prefix}-`));
  return {
    path,
    write(name, text) {
      const file = join(path, name);
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
