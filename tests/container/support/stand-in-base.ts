/**
 * The image's default base is the official Node image, which no registry here can serve. The
 * stand-in: Debian bookworm (`debootstrap --variant=minbase` from the mirror apt uses), Node 24
 * and npm from npm's `node` and `npm` packages where the official image has them
 * (/usr/local/bin, /usr/local/lib/node_modules/npm), and, for npm inside the build only, the
 * host's CA bundle. Kept in podman's storage under a tag naming its contents, so a machine
 * builds it once.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { npmArgs, runOk } from "../../ecosystem/support/commands.js";
import { podman, podmanOk } from "./podman.js";

const SUITE = "bookworm";
const TOOLS = ["node@24", "npm@11"];
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

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

/** The stand-in base's image name, built unless podman already has it. */
export async function ensureStandInBase(): Promise<string> {
  const tools = toolsDirectory();
  mkdirSync(tools, { recursive: true });
  if (!existsSync(join(tools, "node_modules/node/bin/node"))) {
    await runOk("npm", npmArgs("install", "--prefix", tools, ...TOOLS), { cwd: tools });
  }
  const tag = `${SUITE}-node${version(tools, "node")}-npm${version(tools, "npm")}`;
  const image = `localhost/genvideo-stand-in-base:${tag}`;
  if ((await podman("image", "exists", image)).code === 0) return image;

  const rootfs = mkdtempSync(join(tmpdir(), "genvideo-stand-in-base-"));
  try {
    await runOk("debootstrap", ["--variant=minbase", SUITE, rootfs, aptMirror()], { cwd: rootfs });
    cpSync(join(tools, "node_modules/node/bin/node"), join(rootfs, "usr/local/bin/node"));
    cpSync(join(tools, "node_modules/npm"), join(rootfs, "usr/local/lib/node_modules/npm"), {
      recursive: true,
    });
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/local/bin/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/local/bin/npx"));
    mkdirSync(join(rootfs, "etc/ssl/certs"), { recursive: true });
    cpSync(CA_BUNDLE, join(rootfs, CA_BUNDLE));
    const archive = join(rootfs, "..", `${tag}.tar`);
    await runOk("tar", ["-C", rootfs, "-cf", archive, "."], { cwd: rootfs });
    try {
      await podmanOk(
        "import",
        "--change",
        "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "--change",
        `ENV=NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
        archive,
        image,
      );
    } finally {
      rmSync(archive, { force: true });
    }
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  return image;
}
