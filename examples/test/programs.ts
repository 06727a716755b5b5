/**
 * Runs an example as its README says, `node <file>.ts`, in a child process. Node strips the
 * types itself, and `@genvideo/sdk` resolves to its build, as it does for a customer.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const examplesRoot = fileURLToPath(new URL("..", import.meta.url));

/** Only what the examples read: no inherited secrets, no test runner settings. */
function exampleEnvironment(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env };
}

export interface ProgramResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (at most 60 s). */
export function runExample(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<ProgramResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [file, ...args],
      { cwd: examplesRoot, env: exampleEnvironment(env), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === "number" ? error.code : error ? null : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface RunningExample {
  child: ChildProcess;
  /** Resolves with the first line of stdout that matches, and with every later stdout line too. */
  line(pattern: RegExp): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

/** Starts a long-running program (a server); `stop()` sends SIGTERM and waits for the exit. */
export function startExample(file: string, env: Record<string, string>): RunningExample {
  const child = spawn(process.execPath, [file], {
    cwd: examplesRoot,
    env: exampleEnvironment(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match) return;
          listeners.delete(check);
          resolve(match);
        };
        listeners.add(check);
        check();
        void exited.then(() =>
          reject(new Error(`${file} exited before printing ${pattern}:\n${stdout}${stderr}`)),
        );
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
