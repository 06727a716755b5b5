/**
 * `pnpm genvideo-server <command>` at the repository root prints what the CLI prints and exits
 * with its code: no `$ ...` echo of a script, no ELIFECYCLE or recursive-run report around its
 * own errors. The root package has no such script: pnpm runs the server's bin, which the root
 * links as a workspace dev dependency. Needs the server built (`pnpm test` builds it first).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { removeDataDir, temporaryDataDir } from "./support/server-process.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const dataDir = temporaryDataDir();
afterAll(() => removeDataDir(dataDir));

// As typed in a terminal: none of the settings pnpm passes to the scripts it runs (this test may run under one).
const terminalEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|INIT_CWD$)/i.test(name)),
);

function pnpmCli(...args: string[]) {
  const result = spawnSync("pnpm", ["genvideo-server", ...args], {
    cwd: root,
    env: { ...terminalEnv, GENVIDEO_DATA_DIR: dataDir },
    encoding: "utf8",
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe("pnpm genvideo-server at the repository root", () => {
  it("prints only the CLI's own lines around a usage error, and exits 2; its hints run as printed", () => {
    expect(pnpmCli("bogus")).toEqual({
      code: 2,
      output: 'genvideo-server: unknown command "bogus"\nRun pnpm genvideo-server --help for usage.',
    });
    expect(pnpmCli("--help").code).toBe(0);
    expect(pnpmCli("acounts", "list")).toEqual({
      code: 2,
      output:
        'genvideo-server: unknown command "acounts"; did you mean: pnpm genvideo-server accounts list\nRun pnpm genvideo-server --help for usage.',
    });
  });

  it("prints only the CLI's line around an operator error, and exits 1", () => {
    expect(pnpmCli("accounts", "show", "nobody")).toEqual({
      code: 1,
      output: 'genvideo-server: no account named "nobody" (see pnpm genvideo-server accounts list)',
    });
  });

  it("prints a command's output alone", () => {
    const listed = pnpmCli("accounts", "list", "--json");
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.output)).toEqual(expect.any(Array));
  });
});
