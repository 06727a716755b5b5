/**
 * Builds the server's image once for the run, from the tarballs `pnpm pack:packages` wrote
 * (the root script `pnpm test:container` packs first), on the stand-in base.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { REPO_ROOT } from "../../ecosystem/support/packages.js";
import { podman, podmanOk } from "./podman.js";
import { ensureStandInBase } from "./stand-in-base.js";

declare module "vitest" {
  export interface ProvidedContext {
    image: string;
  }
}

const IMAGE = "localhost/genvideo-server:test";

export default async function setup(project: TestProject): Promise<void> {
  if ((await podman("--version")).code !== 0) {
    throw new Error("podman is not installed: apt-get install podman runc (.ci/run does)");
  }
  const packed = join(REPO_ROOT, "packed");
  if (!existsSync(join(packed, "genvideo-server.tgz"))) {
    throw new Error("no packed/genvideo-server.tgz: run `pnpm test:container`, which packs first");
  }
  const started = performance.now();
  const base = await ensureStandInBase();
  const baseReady = performance.now();
  await podmanOk(
    "build",
    "--pull=never",
    // Docker's format: OCI images have no HEALTHCHECK, and podman would drop it.
    "--format=docker",
    `--build-arg=NODE_IMAGE=${base}`,
    "--file",
    join(REPO_ROOT, "apps/server/Containerfile"),
    "--tag",
    IMAGE,
    packed,
  );
  const built = performance.now();
  // The image this tag named before, now untagged: each changed tree would leave one behind.
  await podmanOk(
    "image",
    "prune",
    "--force",
    "--filter",
    "label=org.opencontainers.image.title=genvideo-server",
  );
  const size = Number(await podmanOk("image", "inspect", "--format", "{{.Size}}", IMAGE));
  const baseSize = Number(await podmanOk("image", "inspect", "--format", "{{.Size}}", base));
  console.log(
    [
      `stand-in base ${base}: ${(baseSize / 1e6).toFixed(0)} MB, ready in ${((baseReady - started) / 1000).toFixed(1)} s`,
      `image ${IMAGE}: ${(size / 1e6).toFixed(0)} MB (${((size - baseSize) / 1e6).toFixed(0)} MB over its base), built in ${((built - baseReady) / 1000).toFixed(1)} s`,
    ].join("\n"),
  );
  project.provide("image", IMAGE);
}
