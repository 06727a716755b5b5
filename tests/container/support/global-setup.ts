/**
 * Builds the server's image once for the run, from the tarballs `pnpm pack:packages` wrote
 * (the root script `pnpm test:container` packs first), on the stand-in bases.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { REPO_ROOT } from "../../ecosystem/support/packages.js";
import { podman, podmanOk } from "./podman.js";
import { ensureStandInBases } from "./stand-in-base.js";

declare module "vitest" {
  export interface ProvidedContext {
    image: string;
    /** The stand-in bases' names, for the compose test's stand-in services. */
    debianImage: string;
    nodeImage: string;
  }
}

const IMAGE = "localhost/genvideo-server:test";
/** The label of every image this suite's builds leave, to prune those no tag names. */
const BUILT_BY = "io.genvideo.built-by=container-tests";

export default async function setup(project: TestProject): Promise<void> {
  if ((await podman("--version")).code !== 0) {
    throw new Error("podman is not installed: apt-get install podman runc (.ci/run does)");
  }
  const packed = join(REPO_ROOT, "packed");
  if (!existsSync(join(packed, "genvideo-server.tgz"))) {
    throw new Error("no packed/genvideo-server.tgz: run `pnpm test:container`, which packs first");
  }
  const started = performance.now();
  const bases = await ensureStandInBases();
  const baseReady = performance.now();
  await podmanOk(
    "build",
    "--pull=never",
    // Docker's format: OCI images have no HEALTHCHECK, and podman would drop it.
    "--format=docker",
    `--label=${BUILT_BY}`,
    `--build-arg=NODE_IMAGE=${bases.node}`,
    `--build-arg=RUNTIME_IMAGE=${bases.debian}`,
    "--file",
    join(REPO_ROOT, "apps/server/Containerfile"),
    "--tag",
    IMAGE,
    packed,
  );
  const built = performance.now();
  // The image this tag named before, now untagged, and the install stage's image: each changed
  // tree would leave both behind (podman labels every stage with --label).
  await podmanOk("image", "prune", "--force", "--filter", `label=${BUILT_BY}`);
  const size = Number(await podmanOk("image", "inspect", "--format", "{{.Size}}", IMAGE));
  const baseSize = Number(await podmanOk("image", "inspect", "--format", "{{.Size}}", bases.debian));
  console.log(
    [
      `stand-in bases ${bases.debian}, ${bases.node}: ready in ${((baseReady - started) / 1000).toFixed(1)} s`,
      `image ${IMAGE}: ${(size / 1e6).toFixed(0)} MB (${((size - baseSize) / 1e6).toFixed(0)} MB over its Debian base), built in ${((built - baseReady) / 1000).toFixed(1)} s`,
    ].join("\n"),
  );
  project.provide("image", IMAGE);
  project.provide("debianImage", bases.debian);
  project.provide("nodeImage", bases.node);
}
