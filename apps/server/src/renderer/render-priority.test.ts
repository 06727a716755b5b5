import { execFileSync, type spawn } from "node:child_process";
import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { spawnLowered } from "./h264-encoder.js";

// Status reads must keep their latency while renders run: a render's
// processes get a higher nice value and, on Linux, the SCHED_IDLE policy.
describe("spawnLowered", () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  it.runIf(process.platform === "linux")("starts a render process nicer and SCHED_IDLE", async () => {
    const child = spawnLowered("sleep", ["30"], 10, { stdio: "ignore" });
    children.push(child);

    expect(getPriority(child.pid)).toBe(Math.min(19, getPriority() + 10));
    // chrt sets the policy, then execs sleep; poll briefly for it to have done so.
    const policyOf = () => execFileSync("chrt", ["--pid", String(child.pid)], { encoding: "utf8" });
    for (let waited = 0; !policyOf().includes("SCHED_IDLE") && waited < 2_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(policyOf()).toContain("SCHED_IDLE");
  });

  it("starts it as it is with a niceness of 0", () => {
    const child = spawnLowered("sleep", ["30"], 0, { stdio: "ignore" });
    children.push(child);
    expect(getPriority(child.pid)).toBe(getPriority());
  });
});
