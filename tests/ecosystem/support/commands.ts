import { spawn } from "node:child_process";

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and returns its output; never throws on a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string } = { cwd: process.cwd() },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    // A command that exits without reading its input (podman --version) closes the pipe first:
    // the EPIPE is no failure of ours, its exit code says how it went.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Runs a command that must succeed; its output is in the error when it does not. */
export async function runOk(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${result.code}\n${result.stdout}\n${result.stderr}`.trim(),
    );
  }
  return result;
}

/** npm, with no audit, fund or progress noise. */
export function npmArgs(...args: string[]): string[] {
  return [...args, "--no-audit", "--no-fund", "--loglevel=error"];
}
