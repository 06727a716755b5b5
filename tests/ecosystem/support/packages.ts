/** The workspace's publishable packages and their packed tarballs. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { runOk } from "./commands.js";

export const REPO_ROOT = resolve(import.meta.dirname, "../../..");

export interface PublishablePackage {
  name: string;
  directory: string;
}

/** Every package under packages/ and apps/ that is not private. */
export function publishablePackages(): PublishablePackage[] {
  const found: PublishablePackage[] = [];
  for (const parent of ["packages", "apps"]) {
    for (const entry of readdirSync(join(REPO_ROOT, parent))) {
      const manifestPath = join(REPO_ROOT, parent, entry, "package.json");
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { name: string; private?: boolean };
      if (!manifest.private) found.push({ name: manifest.name, directory: join(REPO_ROOT, parent, entry) });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** Packs one package with pnpm (as a release would: `workspace:` ranges become versions). */
export async function packPackage(directory: string, destination: string): Promise<string> {
  const { stdout } = await runOk("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: directory,
  });
  const report = JSON.parse(stdout) as { filename: string };
  return resolve(destination, report.filename);
}
