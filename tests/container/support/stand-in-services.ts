/**
 * Stand-ins for the images deploy/compose.yaml names beside the server's, which no registry
 * reachable here serves (see ../stand-ins/): PostgreSQL from Debian's package on the Debian
 * stand-in, and s3rver behind MinIO's commands on the Node stand-in. Each is tagged with a hash of
 * its directory and its base, so a machine builds it once, and again only after a change (which
 * removes the earlier build).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { podman, podmanOk } from "./podman.js";

export interface StandInServices {
  /** For docker.io/library/postgres. */
  postgres: string;
  /** For quay.io/minio/minio and quay.io/minio/mc. */
  minio: string;
}

async function ensureBuilt(name: string, base: string): Promise<string> {
  const directory = join(import.meta.dirname, "../stand-ins", name);
  const hash = createHash("sha256").update(base);
  for (const file of readdirSync(directory).sort()) {
    hash.update(file).update(readFileSync(join(directory, file)));
  }
  const image = `localhost/genvideo-stand-in-${name}:${hash.digest("hex").slice(0, 12)}`;
  if ((await podman("image", "exists", image)).code === 0) return image;
  await podmanOk("build", "--pull=never", `--build-arg=BASE=${base}`, "--tag", image, directory);
  // The stand-in's earlier builds, from files since changed.
  const repository = image.slice(0, image.lastIndexOf(":"));
  const built = await podmanOk("images", "--format", "{{.Repository}}:{{.Tag}}", repository);
  for (const earlier of built.split("\n")) {
    if (earlier && earlier !== image) await podman("rmi", earlier);
  }
  return image;
}

/** The stand-ins' image names, each built unless podman already has it. */
export async function ensureStandInServices(bases: {
  debian: string;
  node: string;
}): Promise<StandInServices> {
  const [postgres, minio] = await Promise.all([
    ensureBuilt("postgres", bases.debian),
    ensureBuilt("minio", bases.node),
  ]);
  return { postgres, minio };
}
