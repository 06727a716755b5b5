/**
 * The server's test harness: everything `reference-server.ts` shares with the
 * other packages' tests, plus running the CLI in this process, which imports
 * the server's sources and so stays out of what other packages import.
 */
import type { CliResult } from "../../src/testing/reference-server.js";

export * from "../../src/testing/reference-server.js";

/**
 * Runs a CLI command inside the test process: the same code and the same
 * database as the spawned CLI, without a Node start (tests that set up many
 * accounts and keys stay fast). Tests about the CLI process itself use `runCli`.
 */
export async function runCliInProcess(args: string[], dataDir: string): Promise<CliResult> {
  const { runCli: run } = await import("../../src/cli/run-cli.js");
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    env: { GENVIDEO_DATA_DIR: dataDir },
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
  });
  return { code, stdout, stderr };
}

/**
 * Service time at 600x (the 10-minute deadline passes in a real second, the
 * 30 s retry spacing in 50 ms), fixture renders, no rate limits, and
 * callbacks to loopback receivers allowed.
 */
export const FAST_SERVICE_ENV: Readonly<Record<string, string>> = {
  GENVIDEO_RENDERER: "fixture",
  GENVIDEO_TIME_SCALE: "600",
  GENVIDEO_RATE_LIMITS: "off",
  GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
};
