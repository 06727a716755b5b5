import { execFileSync, spawn } from "node:child_process";
import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { lowerPriority } from "./h264-encoder.js";

// Status reads must keep their latency while renders run (issue 4): a render's
// processes get a higher nice value and, on Linux, the SCHED_IDLE policy.
describe("lowerPriority", () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  it.runIf(process.platform === "linux")("makes a render process nicer and SCHED_IDLE", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(child);
    lowerPriority(child, 10);

    expect(getPriority(child.pid)).toBe(Math.min(19, getPriority() + 10));
    // chrt is applied asynchronously; poll briefly for the kernel to report it.
    const policyOf = () => execFileSync("chrt", ["--pid", String(child.pid)], { encoding: "utf8" });
    for (let waited = 0; !policyOf().includes("SCHED_IDLE") && waited < 2_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(policyOf()).toContain("SCHED_IDLE");
  });
});
