/**
 * The image's default bases are the official Debian and Node images, which no registry here can
 * serve. Their stand-ins:
 * - Debian: bookworm from `debootstrap --variant=minbase` (the mirror apt uses), without apt's
 *   package lists and caches, as the official slim image ships;
 * - Node: that, plus Node 24 and npm from npm's `node` and `npm` packages where the official image
 *   has them (/usr/local/bin, /usr/local/lib/node_modules/npm), and, for npm inside the build only,
 *   the host's CA bundle.
 * Each is kept in podman's storage under a tag naming its contents, so a machine builds it once.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { npmArgs, runOk } from "../../ecosystem/support/commands.js";
import { podman, podmanOk } from "./podman.js";

const SUITE = "bookworm";
const TOOLS = ["node@24", "npm@11"];
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

export interface StandInBases {
  /** For docker.io/library/debian:bookworm-slim. */
  debian: string;
  /** For docker.io/library/node:24-bookworm-slim. */
  node: string;
}

function toolsDirectory(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(process.env.GENVIDEO_RUNTIMES_DIR || join(base, "genvideo-runtimes"), "container-base");
}

/** The Debian mirror apt uses here (deb822 or one-line sources), else Debian's own. */
function aptMirror(): string {
  for (const file of ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"]) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    const mirror =
      /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text)?.[1] ??
      /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s/m.exec(text)?.[1];
    if (mirror) return mirror;
  }
  return "http://deb.debian.org/debian";
}

function version(directory: string, name: string): string {
  return (
    JSON.parse(readFileSync(join(directory, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
}

/** Runs `work` in a temporary directory, removed afterwards. */
async function inTemporaryDirectory<T>(prefix: string, work: (directory: string) => Promise<T>): Promise<T> {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await work(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function ensureDebian(): Promise<string> {
  const image = `localhost/genvideo-stand-in-debian:${SUITE}-slim`;
  if ((await podman("image", "exists", image)).code === 0) return image;
  await inTemporaryDirectory("genvideo-stand-in-debian-", async (directory) => {
    const rootfs = join(directory, "rootfs");
    mkdirSync(rootfs);
    await runOk("debootstrap", ["--variant=minbase", SUITE, rootfs, aptMirror()], { cwd: directory });
    for (const cached of ["var/lib/apt/lists", "var/cache/apt"]) {
      rmSync(join(rootfs, cached), { recursive: true, force: true });
      mkdirSync(join(rootfs, cached, cached.endsWith("lists") ? "partial" : "archives/partial"), {
        recursive: true,
      });
    }
    const archive = join(directory, "rootfs.tar");
    await runOk("tar", ["-C", rootfs, "-cf", archive, "."], { cwd: directory });
    await podmanOk(
      "import",
      "--change",
      "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--change",
      'CMD=["bash"]',
      archive,
      image,
    );
  });
  return image;
}

async function ensureNode(debian: string): Promise<string> {
  const tools = toolsDirectory();
  mkdirSync(tools, { recursive: true });
  if (!existsSync(join(tools, "node_modules/node/bin/node"))) {
    await runOk("npm", npmArgs("install", "--prefix", tools, ...TOOLS), { cwd: tools });
  }
  const image = `localhost/genvideo-stand-in-node:${version(tools, "node")}-npm${version(tools, "npm")}-${SUITE}-slim`;
  if ((await podman("image", "exists", image)).code === 0) return image;
  await inTemporaryDirectory("genvideo-stand-in-node-", async (context) => {
    cpSync(join(tools, "node_modules/node/bin/node"), join(context, "node"));
    cpSync(join(tools, "node_modules/npm"), join(context, "npm"), { recursive: true });
    cpSync(CA_BUNDLE, join(context, "ca-certificates.crt"));
    writeFileSync(
      join(context, "Containerfile"),
      [
        `FROM ${debian}`,
        "COPY node /usr/local/bin/node",
        "COPY npm /usr/local/lib/node_modules/npm",
        `COPY ca-certificates.crt ${CA_BUNDLE}`,
        "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\",
        " && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx",
        `ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
        'CMD ["node"]',
        "",
      ].join("\n"),
    );
    await podmanOk("build", "--pull=never", "--tag", image, context);
  });
  return image;
}

/** The stand-in bases' image names, each built unless podman already has it. */
export async function ensureStandInBases(): Promise<StandInBases> {
  const debian = await ensureDebian();
  return { debian, node: await ensureNode(debian) };
}
