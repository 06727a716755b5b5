/// <reference types="node" />
/** Running the customers' tools from this package's node_modules, and loopback helpers. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ProcessResult, runProcess } from "@genvideo/server/testing";

export const packageRoot: string = fileURLToPath(new URL("../..", import.meta.url));

/** A tool's executable as npm installed it (`node_modules/.bin/<name>`). */
export function bin(name: string): string {
  return join(packageRoot, "node_modules/.bin", name);
}

export type ToolResult = ProcessResult;

/** Runs a tool to completion; never throws on a non-zero exit (the caller asserts on it). */
export function runTool(name: string, args: string[], options: { cwd?: string } = {}): Promise<ToolResult> {
  return runProcess(bin(name), args, {
    cwd: options.cwd ?? packageRoot,
    env: {
      ...process.env,
      // No telemetry and no update check from a test run.
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
      NO_UPDATE_NOTIFIER: "1",
    },
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
