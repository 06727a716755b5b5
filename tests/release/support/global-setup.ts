/**
 * The rehearsal itself, once for the run: Verdaccio on loopback, the working tree versioned and
 * published by `pnpm release` in a copy, and bun (from npm, shared with the ecosystem suite).
 * The test files then install from the registry as customers do.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureRuntimes } from "../../ecosystem/support/runtimes.js";
import { startRegistry } from "./registry.js";
import { rehearseRelease } from "./rehearsal.js";

declare module "vitest" {
  export interface ProvidedContext {
    registryUrl: string;
    /** A login on it that may publish. */
    registryToken: string;
    /** Package name to the version the rehearsal published. */
    versions: Record<string, string>;
    bun: string;
    /** A temporary directory outside the workspace, removed after the run. */
    scratch: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scratch = mkdtempSync(join(tmpdir(), "genvideo-release-"));
  const registry = await startRegistry(join(scratch, "registry"));
  const teardown = async () => {
    await registry.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const [rehearsal, runtimes] = await Promise.all([
      rehearseRelease(join(scratch, "repository"), registry),
      ensureRuntimes(),
    ]);
    // The report CI keeps: what this run published.
    console.log(
      `release rehearsal published to ${registry.url}:\n${Object.entries(rehearsal.versions)
        .map(([name, version]) => `  ${name}@${version}`)
        .join("\n")}`,
    );
    project.provide("registryUrl", registry.url);
    project.provide("registryToken", registry.token);
    project.provide("versions", rehearsal.versions);
    project.provide("bun", runtimes.bun);
    project.provide("scratch", scratch);
  } catch (error) {
    await teardown();
    throw new Error(`${(error as Error).message}\nverdaccio's log:\n${registry.log()}`);
  }
  return teardown;
}
