// `pnpm bench:smoke` (a CI step): every benchmark in smoke mode, a second or two each, so one that
// no longer runs fails CI instead of whoever needs its figures next. Nothing here judges a figure:
// a benchmark passes when it exits 0 and prints its figures (`benchmarks.mjs` says which lines).
// Run after `pnpm build`; the script does it.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { benchmarks, smokeCommand } from "./benchmarks.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

/** Runs `command` from bench/ in a shell; its exit status and everything it printed. */
function run(command) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd: here, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("close", (status, signal) => resolve({ status, signal, output }));
  });
}

// Two at a time: most of a smoke run is waiting (servers starting, fixed-length loads), and no
// figure is judged, so sharing the cores costs nothing but a quicker step.
describe.concurrent("every benchmark runs in smoke mode and prints its figures", () => {
  for (const benchmark of benchmarks) {
    it(benchmark.name, async () => {
      const { status, signal, output } = await run(smokeCommand(benchmark));
      expect({ status, signal }, output).toEqual({ status: 0, signal: null });
      for (const figure of benchmark.figures) expect(output).toMatch(figure);
    });
  }
});

// After the benchmarks above: through turbo, the root's script checks the builds first.
describe("the root's pnpm bench", () => {
  it("takes benchmark names as the docs write them (`pnpm bench telemetry`)", async () => {
    const { status, output } = await run("pnpm --dir .. bench no-such-benchmark");
    expect(status, output).not.toBe(0);
    expect(output).toContain("no benchmark named no-such-benchmark; there are sdk-size,");
  });
});
