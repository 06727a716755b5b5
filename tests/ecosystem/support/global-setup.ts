/**
 * Packs every publishable package once (from its current dist: the root script builds first)
 * and installs the runtimes; the test files get the paths through `inject`.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { packPackage, publishablePackages } from "./packages.js";
import { ensureRuntimes, type Runtimes } from "./runtimes.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Package name to the absolute path of its packed tarball. */
    tarballs: Record<string, string>;
    runtimes: Runtimes;
    /** A temporary directory outside the workspace, removed after the run. */
    scratch: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const scratch = mkdtempSync(join(tmpdir(), "genvideo-ecosystem-"));
  const packages = publishablePackages();
  for (const { name, directory } of packages) {
    if (!existsSync(join(directory, "dist"))) {
      throw new Error(`${name} has no dist: run \`pnpm test:ecosystem\`, which builds first`);
    }
  }
  const [tarballPaths, runtimes] = await Promise.all([
    Promise.all(packages.map(({ directory }) => packPackage(directory, join(scratch, "tarballs")))),
    ensureRuntimes(),
  ]);
  project.provide(
    "tarballs",
    Object.fromEntries(packages.map(({ name }, index) => [name, tarballPaths[index] as string])),
  );
  project.provide("runtimes", runtimes);
  project.provide("scratch", scratch);
  return () => rmSync(scratch, { recursive: true, force: true });
}
