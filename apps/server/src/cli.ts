#!/usr/bin/env node
/**
 * The CLI's entry. The Node.js version is checked first, and the CLI loaded only then: an import
 * here would load the server, whose `node:sqlite` an older Node cannot resolve at all.
 */
import { createInterface } from "node:readline/promises";
import { nodeVersionProblem } from "./cli/node-version.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`genvideo-server: ${problem}\n`);
  process.exit(1);
}

async function ask(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await terminal.question(question);
  } finally {
    terminal.close();
  }
}

// Stack traces name the TypeScript sources (the published dist carries its maps).
process.setSourceMapsEnabled(true);

const { runCli } = await import("./cli/run-cli.js");
const code = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  ...(process.stdin.isTTY ? { ask } : {}),
});
process.exitCode = code;
