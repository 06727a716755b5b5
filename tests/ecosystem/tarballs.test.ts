import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { runOk } from "./support/commands.js";
import { publishablePackages, REPO_ROOT } from "./support/packages.js";
import { checkUnpackedPackage, tarballFigures } from "./support/tarball-check.js";

const tarballs = inject("tarballs");
const scratch = inject("scratch");

async function unpack(tarball: string): Promise<string> {
  const directory = join(scratch, "unpacked", basename(tarball, ".tgz"));
  mkdirSync(directory, { recursive: true });
  await runOk("tar", ["-xzf", tarball, "-C", directory], { cwd: directory });
  return join(directory, "package");
}

const packageDirs = Object.fromEntries(publishablePackages().map(({ name, directory }) => [name, directory]));
const repositoryOf = (name: string) => ({ root: REPO_ROOT, packageDir: packageDirs[name] as string });

describe.each(Object.entries(tarballs))("the %s tarball", (name, tarball) => {
  it("holds every file it names and none of the workspace's tooling", async () => {
    const root = await unpack(tarball);
    expect(checkUnpackedPackage(root, repositoryOf(name))).toEqual([]);
    const figures = tarballFigures(tarball, root);
    // The sizes go to the log, for release notes and for comparing before and after a change.
    console.log(
      `${name}: ${figures.packed} B packed, ${figures.unpacked} B unpacked, ${figures.files} files`,
    );
  });

  it("carries the repository's LICENSE, word for word", async () => {
    const root = await unpack(tarball);
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toBe(
      readFileSync(join(REPO_ROOT, "LICENSE"), "utf8"),
    );
  });
});

describe("the tarball check", () => {
  it("catches a tarball whose exports name a file it does not hold", async () => {
    const sdk = await unpack(tarballs["@genvideo/sdk"] as string);
    const broken = join(scratch, "broken-sdk");
    cpSync(sdk, broken, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(broken, "package.json"), "utf8"));
    manifest.exports["."].default = "./dist/sdk.js";
    writeFileSync(join(broken, "package.json"), JSON.stringify(manifest));

    expect(checkUnpackedPackage(broken, repositoryOf("@genvideo/sdk"))).toEqual([
      "package.json names ./dist/sdk.js, not in the tarball",
    ]);
  });

  it("catches a README link into the repository and a declaration naming a test file", async () => {
    const sdk = await unpack(tarballs["@genvideo/sdk"] as string);
    const broken = join(scratch, "broken-sdk-links");
    cpSync(sdk, broken, { recursive: true });
    writeFileSync(join(broken, "README.md"), "See [the API](../../docs/api.md).\n");
    writeFileSync(join(broken, "dist/extra.d.ts"), "/** Covered by test/client.test.ts. */\nexport {};\n");

    expect(checkUnpackedPackage(broken, repositoryOf("@genvideo/sdk"))).toEqual([
      "README.md names ../../docs/api.md, not in the tarball",
      "dist/extra.d.ts names test/client.test.ts, not in the tarball",
    ]);
  });
});

describe("citations of repository files in shipped code", () => {
  it("are accepted when the file exists there and is no test, and caught otherwise", async () => {
    const sdk = await unpack(tarballs["@genvideo/sdk"] as string);
    const citing = join(scratch, "citing-sdk");
    cpSync(sdk, citing, { recursive: true });
    writeFileSync(
      join(citing, "dist/cites.d.ts"),
      "/** Errors: docs/api.md. Gone: docs/nowhere.md. */\nexport {};\n",
    );

    expect(checkUnpackedPackage(citing, repositoryOf("@genvideo/sdk"))).toEqual([
      "dist/cites.d.ts names docs/nowhere.md, not in the tarball",
    ]);
  });
});
