/**
 * Debian's `prometheus` package brings `prometheus` and `promtool` (.ci/run installs it).
 * Without them the suites that need them are skipped, one line saying why, except under
 * CI=true, where a missing binary fails the run.
 */
import { execFileSync } from "node:child_process";
import { describe } from "vitest";

function found(binary: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${binary}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const PROMTOOL: string | undefined = found("promtool");
export const PROMETHEUS: string | undefined = found("prometheus");

/** `describe` when `binary` is on the PATH; skipped otherwise (an error under CI=true). */
export function describeWith(binary: string | undefined, name: string, suite: () => void): void {
  if (binary === undefined && process.env.CI !== "true") {
    console.warn(`${name}: skipped, no prometheus/promtool on the PATH (apt-get install prometheus)`);
    describe.skip(name, suite);
    return;
  }
  describe(name, suite);
}
