/** A fresh customer project outside the workspace, its packages installed by npm. */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { npmArgs, runOk } from "./commands.js";

export interface ProjectOptions {
  /** Where it is made; a directory of its own under the run's scratch directory. */
  directory: string;
  /** Our packages the project depends on, by name, each installed from its tarball. */
  tarballs: Record<string, string>;
  /** Packages from the registry, as `npm install` would record them. */
  registry?: Record<string, string>;
  /** Files copied in from this suite's fixtures folder. */
  fixtures?: string;
}

export async function createProject(options: ProjectOptions): Promise<string> {
  const { directory, tarballs, registry = {}, fixtures } = options;
  mkdirSync(directory, { recursive: true });
  if (fixtures) cpSync(fixtures, directory, { recursive: true });
  const local = Object.fromEntries(Object.entries(tarballs).map(([name, path]) => [name, `file:${path}`]));
  const manifest = {
    name: "genvideo-customer",
    private: true,
    type: "module",
    dependencies: { ...local, ...registry },
    // One package depending on another (msw on the engine) must get the tarball too, never a
    // package of the same name from the registry.
    overrides: Object.fromEntries(Object.keys(local).map((name) => [name, `$${name}`])),
  };
  writeFileSync(join(directory, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await runOk("npm", npmArgs("install"), { cwd: directory });
  return directory;
}
