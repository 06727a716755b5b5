/// <reference types="node" />
// Starts the reference server (apps/server) the way a developer does, `genvideo-server start`, in a
// child process on a loopback port the OS picks, from its sources. Service time runs 600 times
// faster, so the 10-minute deadline is 1 s and [[timeout]] resolves quickly.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../../../apps/server/src/cli.ts", import.meta.url));
const hooks = fileURLToPath(new URL("./source-hooks.mjs", import.meta.url));

export const referenceApiKey = "sdk_e2e_key_0123456789abcdef";
export const referenceWebhookSecret: string = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

/** Whether the reference server's CLI is present in this checkout. */
export const referenceServerAvailable: boolean = existsSync(cli);

export interface ReferenceServer {
  url: string;
  stop(): Promise<void>;
}

export async function startReferenceServer(): Promise<ReferenceServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "genvideo-sdk-e2e-"));
  const child: ChildProcess = spawn(
    process.execPath,
    ["--conditions=@genvideo/source", "--import", hooks, cli, "start"],
    {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        PORT: "0",
        HOST: "127.0.0.1",
        GENVIDEO_DATA_DIR: dataDir,
        GENVIDEO_BOOTSTRAP_API_KEY: referenceApiKey,
        GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET: referenceWebhookSecret,
        GENVIDEO_TIME_SCALE: "600",
        GENVIDEO_RENDERER: "fixture",
        GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
        GENVIDEO_RATE_LIMITS: "off",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`reference server did not start in 45 s:\n${output}`)),
      45_000,
    );
    const check = () => {
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`reference server exited before listening:\n${output}`));
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
