import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nodeVersionProblem } from "./node-version.js";

describe("nodeVersionProblem", () => {
  it("accepts the Node versions with an unflagged node:sqlite", () => {
    for (const version of ["22.13.0", "22.20.1", "23.4.0", "24.21.0", "25.0.0"])
      expect(nodeVersionProblem(version), version).toBeUndefined();
  });

  it("names the version needed and the one running for older ones", () => {
    for (const version of ["20.20.2", "22.12.0", "23.3.0", "18.19.1"])
      expect(nodeVersionProblem(version)).toMatch(
        new RegExp(
          `^needs Node\\.js 22\\.13 or later .*this is Node\\.js v${version.replaceAll(".", "\\.")}\\.`,
        ),
      );
  });
});

// The machines this project runs on ship Node 20 at /usr/bin/node: the built CLI, run by it as a
// newcomer would, must say what it needs instead of failing to resolve node:sqlite.
const oldNode = "/usr/bin/node";
const builtCli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const run = promisify(execFile);

describe.runIf(existsSync(oldNode))(`the built CLI on ${oldNode}`, () => {
  it("names the Node.js version it needs, on --help as on any command", async () => {
    const { stdout: version } = await run(oldNode, ["--version"]);
    if (nodeVersionProblem(version.trim().slice(1)) === undefined) return; // a machine with a new Node there
    expect(existsSync(builtCli), "build the server first (pnpm build)").toBe(true);
    for (const args of [["--help"], ["start"]]) {
      const result = await run(oldNode, [builtCli, ...args]).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`genvideo-server: ${nodeVersionProblem(version.trim().slice(1))}\n`);
      expect(result.stderr).not.toContain("ERR_UNKNOWN_BUILTIN_MODULE");
    }
  });
});
