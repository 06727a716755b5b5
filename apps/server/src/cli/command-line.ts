/**
 * What every command of `genvideo-server` shares: its input and output, its
 * options and its two kinds of refusal. A module of its own so that the
 * dispatcher (run-cli.ts) and the commands it calls import it, not each other.
 */

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /** Asks the person at the terminal; absent when stdin is not a terminal (a pipe, CI). */
  ask?(question: string): Promise<string>;
}

/** A mistake in how the command was called: exit code 2 and the usage hint. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** An operator error the CLI explains in one line: exit code 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

export const OPTIONS = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  credits: { type: "string" },
  account: { type: "string" },
  overlap: { type: "string" },
  task: { type: "string" },
  secret: { type: "string" },
  name: { type: "string" },
  expires: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  role: { type: "string" },
  "database-url": { type: "string" },
  "data-dir": { type: "string" },
  key: { type: "string" },
  create: { type: "boolean" },
  yes: { type: "boolean" },
  "receiver-url": { type: "string" },
  "receiver-port": { type: "string" },
} as const;

export type CliOptions = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string;
};
