// `pnpm pack:packages`: every public package packed (as `pnpm release` would publish it) into
// packed/, one tarball per package under a name without its version, then the npm command that
// installs them into another project. The container image is built from the same tarballs.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const destination = join(root, "packed");

const packages = ["packages", "apps"].flatMap((parent) =>
  readdirSync(join(root, parent)).flatMap((entry) => {
    const directory = join(root, parent, entry);
    try {
      const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8"));
      return manifest.private ? [] : [{ name: manifest.name, directory }];
    } catch {
      return [];
    }
  }),
);

rmSync(destination, { recursive: true, force: true });
mkdirSync(destination);
for (const { directory } of packages) {
  // `%s` is the package's name without its @: packed/genvideo-sdk.tgz.
  execFileSync("pnpm", ["pack", "--out", join(destination, "%s.tgz")], { cwd: directory, stdio: "ignore" });
}
const tarball = (name) => join(destination, `${name.slice(1).replace("/", "-")}.tgz`);
const names = packages.map(({ name }) => name).sort();
console.log(`Packed ${names.join(", ")} into ${destination}.\n`);
console.log("In your project, the SDK (with the schema it depends on):");
console.log(`  npm install ${["@genvideo/sdk", "@genvideo/schema"].map(tarball).join(" ")}\n`);
console.log("Then the mock for your tests (it runs the engine, beside the SDK and schema above):");
console.log(`  npm install --save-dev ${["@genvideo/msw", "@genvideo/engine"].map(tarball).join(" ")} msw\n`);
console.log("The reference server:");
console.log(
  `  npm install --save-dev ${names
    .map(tarball)
    .filter((path) => !path.includes("msw"))
    .join(" ")}`,
);
console.log("  npx genvideo-server start");
