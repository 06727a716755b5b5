/**
 * The Prometheus rules shipped in deploy/prometheus: valid, and their unit tests (every alert
 * firing when it should and quiet when it should not) green under `promtool test rules`.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { describeWith, PROMTOOL } from "./support/prometheus-binaries.js";

const run = promisify(execFile);
const rules = fileURLToPath(new URL("../../../deploy/prometheus/", import.meta.url));

describeWith(PROMTOOL, "the alert and recording rules", () => {
  it("pass promtool's checks", async () => {
    const { stdout } = await run(PROMTOOL ?? "promtool", ["check", "rules", "genvideo-rules.yml"], {
      cwd: rules,
    });
    expect(stdout).toContain("SUCCESS: 15 rules found");
  });

  it("pass their unit tests (promtool test rules)", async () => {
    const result = await run(PROMTOOL ?? "promtool", ["test", "rules", "genvideo-rules.test.yml"], {
      cwd: rules,
    }).catch((error: { stdout?: string; stderr?: string }) => error);
    expect(`${result.stdout}${result.stderr}`).toContain("SUCCESS");
  });
});
