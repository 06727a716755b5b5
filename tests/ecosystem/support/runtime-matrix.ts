/**
 * The SDK README's runtime matrix, written from what this suite's runs found: a row per runtime,
 * a check mark per step that worked. The README keeps it between two markers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./packages.js";

const README = join(REPO_ROOT, "packages/sdk/README.md");
const START = "<!-- runtime-matrix:start (written by tests/ecosystem; do not edit) -->";
const END = "<!-- runtime-matrix:end -->";
/** The rows the SDK promises, in the README's order; a runtime that did not run shows as failed. */
export const MATRIX_RUNTIMES = ["Node 22", "Node 24", "Bun", "Deno", "workerd (Cloudflare Workers)"];

interface StepResults {
  create: boolean;
  poll: boolean;
  verify: boolean;
}

const rows = new Map<string, StepResults>();

export function recordRuntimeRow(runtime: string, result: StepResults): void {
  rows.set(runtime, { create: result.create, poll: result.poll, verify: result.verify });
}

function mark(ok: boolean | undefined): string {
  return ok ? "yes" : "**no**";
}

/** The table, padded the way the repository's formatter lays Markdown tables out. */
export function runtimeMatrixTable(): string {
  const header = ["runtime", "`createTask`", "`pollUntilDone`", "`verifyWebhook`"];
  const body = MATRIX_RUNTIMES.map((runtime) => {
    const row = rows.get(runtime);
    return [runtime, mark(row?.create), mark(row?.poll), mark(row?.verify)];
  });
  const widths = header.map((_, column) =>
    Math.max(...[header, ...body].map((cells) => (cells[column] as string).length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] as number)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
}

/** The table the runs produced and the one in the README; with UPDATE_RUNTIME_MATRIX=1 it rewrites the README first. */
export function compareRuntimeMatrix(): { expected: string; actual: string } {
  const expected = runtimeMatrixTable();
  const readme = readFileSync(README, "utf8");
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return { expected, actual: `(no ${START} ... ${END} in ${README})` };
  if (process.env.UPDATE_RUNTIME_MATRIX === "1") {
    writeFileSync(README, `${readme.slice(0, start + START.length)}\n${expected}\n${readme.slice(end)}`);
    return { expected, actual: expected };
  }
  return { expected, actual: readme.slice(start + START.length, end).trim() };
}
