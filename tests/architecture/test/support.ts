import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The repository root, where the tools' configurations are. */
export const REPO_ROOT: string = join(import.meta.dirname, "../../..");

/** A throwaway tree of files (path → content) in a temporary directory; `remove` deletes it. */
export function fixtureTree(files: Record<string, string>): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), "genvideo-architecture-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs a command of the repository's toolchain in `cwd`; resolves with its output and exit code, never rejects on a failing exit. */
export function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = join(REPO_ROOT, "node_modules/.bin", command);
  return new Promise((resolve, reject) => {
    execFile(bin, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
    });
  });
}
