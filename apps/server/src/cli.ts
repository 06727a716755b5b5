#!/usr/bin/env node
import { runCli } from "./cli/run-cli.js";

// Stack traces name the TypeScript sources (the published dist carries its maps).
process.setSourceMapsEnabled(true);

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
process.exitCode = code;
