/**
 * The reference server as a customer starts it: `npx genvideo-server start` in their project (or
 * another npx command line), the key and secret read from what the first start prints.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface CustomerServer {
  url: string;
  apiKey: string;
  webhookSecret: string;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

export function startCustomerServer(
  projectDirectory: string,
  env: NodeJS.ProcessEnv,
  npxArguments: readonly string[] = ["genvideo-server", "start"],
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<CustomerServer> {
  // A process group of its own: npx runs the bin as a child, and both must stop.
  const child: ChildProcess = spawn("npx", npxArguments, {
    cwd: projectDirectory,
    env: { ...baseEnv, PORT: "0", ...env },
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch (error) {
        // The group ended between the check and the signal.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    await exited;
  };
  return new Promise((resolve, reject) => {
    const check = () => {
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      const apiKey = /API key \(shown once, store it now\):\n(\S+)/.exec(stderr)?.[1];
      const webhookSecret = /Webhook signing secret \(shown once\):\n(\S+)/.exec(stderr)?.[1];
      if (url && apiKey && webhookSecret) {
        resolve({ url, apiKey, webhookSecret, stdout: () => stdout, stderr: () => stderr, stop });
      }
    };
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk;
      check();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk;
      check();
    });
    child.on("exit", (code) =>
      reject(new Error(`genvideo-server exited with ${code}\n${stdout}\n${stderr}`)),
    );
  });
}
