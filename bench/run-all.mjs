// `pnpm bench`: every benchmark in one run, one after the other (they share two cores),
// then a summary. A benchmark exits non-zero when it misses its target or fails;
// the run goes on either way, so one miss does not hide the other figures.
//   node run-all.mjs [--smoke] [name...]
// --smoke runs each for a second or two (see smoke.mjs): that they all still work. Diagnostics
// (benchmarks.mjs) run when named, or in smoke mode.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchmarks, smokeCommand } from "./benchmarks.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const { values: flags, positionals: only } = parseArgs({
  options: { smoke: { type: "boolean", default: false } },
  allowPositionals: true,
});
const unknown = only.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
if (unknown.length > 0) {
  console.error(
    `no benchmark named ${unknown.join(", ")}; there are ${benchmarks.map((b) => b.name).join(", ")}`,
  );
  process.exit(2);
}

// Builds come first: each measures built code.
const build = spawnSync("pnpm", ["--dir", "..", "run", "build"], { cwd: here, stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

const results = [];
for (const benchmark of benchmarks) {
  const chosen = only.length > 0 ? only.includes(benchmark.name) : flags.smoke || !benchmark.diagnostic;
  if (!chosen) continue;
  const command = flags.smoke ? smokeCommand(benchmark) : benchmark.command;
  console.log(`\n=== ${benchmark.name}: ${benchmark.what}\n$ ${command}`);
  const started = performance.now();
  const run = spawnSync(command, { cwd: here, stdio: "inherit", shell: true });
  results.push({
    name: benchmark.name,
    status: run.status ?? 1,
    seconds: (performance.now() - started) / 1000,
  });
}

console.log("\n=== summary");
const passed = flags.smoke ? "ran" : "ok (target met)";
const failed = flags.smoke ? "FAILED" : "target missed or failed";
for (const { name, status, seconds } of results) {
  console.log(`${name.padEnd(24)} ${status === 0 ? passed : failed}  ${seconds.toFixed(0)} s`);
}
process.exitCode = results.some((result) => result.status !== 0) ? 1 : 0;
