/**
 * Fresh customer projects: a directory outside the workspace whose .npmrc names the rehearsal
 * registry and nothing else, and packages added the way each package manager's users add them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { npmArgs, runOk } from "../../ecosystem/support/commands.js";
import { shellEnvironment } from "./environment.js";

export type PackageManager = "npm" | "pnpm" | "bun";

export const PACKAGE_MANAGERS: readonly PackageManager[] = ["npm", "pnpm", "bun"];

/** A new project directory: a package.json of the given module type and the registry's .npmrc. */
export function freshProject(directory: string, registryUrl: string, type: "module" | "commonjs"): string {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, ".npmrc"), `registry=${registryUrl}/\n`);
  writeFileSync(
    join(directory, "package.json"),
    `${JSON.stringify({ name: "genvideo-customer", private: true, type }, null, 2)}\n`,
  );
  return directory;
}

/** `npm install`, `pnpm add` or `bun add`, as a dependency or (`dev`) a development dependency. */
export async function addPackages(
  manager: PackageManager,
  executables: { bun: string },
  project: string,
  packages: readonly string[],
  options: { dev?: boolean } = {},
): Promise<void> {
  const env = shellEnvironment();
  if (manager === "npm") {
    await runOk("npm", npmArgs("install", ...(options.dev ? ["--save-dev"] : []), ...packages), {
      cwd: project,
      env,
    });
  } else if (manager === "pnpm") {
    await runOk("pnpm", ["add", ...(options.dev ? ["--save-dev"] : []), ...packages], { cwd: project, env });
  } else {
    await runOk(executables.bun, ["add", ...(options.dev ? ["--dev"] : []), ...packages], {
      cwd: project,
      env,
    });
  }
}
