/**
 * The release, rehearsed: a copy of the working tree versioned the way a release versions it
 * (`changeset version`, here as a snapshot so each run has versions of its own), then
 * `pnpm release`, the maintainer's command, publishing to the rehearsal registry.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runOk } from "../../ecosystem/support/commands.js";
import { publishablePackages, REPO_ROOT } from "../../ecosystem/support/packages.js";
import { shellEnvironment } from "./environment.js";

export interface Rehearsal {
  /** Package name to the version `changeset version` gave it and `pnpm release` published. */
  versions: Record<string, string>;
  /** What `pnpm release` printed. */
  output: string;
}

/** The files of the working tree git would commit (tracked and new, nothing ignored). */
function copyWorkingTree(destination: string): void {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  for (const file of listed.split("\0")) {
    if (!file) continue;
    mkdirSync(dirname(join(destination, file)), { recursive: true });
    // A file deleted but not yet staged is still listed; it is not part of the tree.
    try {
      cpSync(join(REPO_ROOT, file), join(destination, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

export async function rehearseRelease(
  copy: string,
  registry: { url: string; token: string },
): Promise<Rehearsal> {
  copyWorkingTree(copy);
  const env = shellEnvironment();
  const git = (...args: string[]) =>
    runOk("git", ["-c", "user.name=Release rehearsal", "-c", "user.email=rehearsal@localhost", ...args], {
      cwd: copy,
      env,
    });
  // `changeset publish` tags each release in git, as the real one does: the copy is a repository.
  await git("init", "--quiet", "--initial-branch=main");
  await git("add", "--all");
  await git("commit", "--quiet", "--no-verify", "--message", "The tree being rehearsed");
  // From the store the clone's own install filled: quick, and the lockfile must already be right.
  await runOk("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], { cwd: copy, env });
  await runOk("pnpm", ["changeset", "version", "--snapshot", "rehearsal"], { cwd: copy, env });
  await git("commit", "--quiet", "--all", "--no-verify", "--message", "Version packages (rehearsal)");

  // Where a maintainer's ~/.npmrc names npm and their login, the copy's names the rehearsal registry.
  const host = registry.url.replace(/^https?:/, "");
  writeFileSync(join(copy, ".npmrc"), `registry=${registry.url}/\n${host}/:_authToken=${registry.token}\n`);
  const { stdout, stderr } = await runOk("pnpm", ["release"], { cwd: copy, env });

  const versions: Record<string, string> = {};
  for (const { name, directory } of publishablePackages()) {
    const manifestPath = join(copy, directory.slice(REPO_ROOT.length), "package.json");
    versions[name] = (JSON.parse(readFileSync(manifestPath, "utf8")) as { version: string }).version;
  }
  return { versions, output: `${stdout}\n${stderr}` };
}
