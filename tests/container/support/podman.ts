/**
 * podman as this machine runs it: with runc (the kernel mounts cgroups in hybrid mode, which crun
 * refuses) and this suite's containers.conf.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type CommandResult, run, runOk } from "../../ecosystem/support/commands.js";

const RUNC = ["/usr/sbin/runc", "/usr/bin/runc"].find((path) => existsSync(path));

const env = { ...process.env, CONTAINERS_CONF: join(import.meta.dirname, "../containers.conf") };

function command(args: readonly string[]): string[] {
  return [...(RUNC ? ["--runtime", RUNC] : []), ...args];
}

/** podman with these arguments; the result whatever its exit code. */
export function podman(...args: string[]): Promise<CommandResult> {
  return run("podman", command(args), { cwd: process.cwd(), env });
}

/** podman with these arguments, which must succeed; its stdout, trimmed. */
export async function podmanOk(...args: string[]): Promise<string> {
  return (await runOk("podman", command(args), { cwd: process.cwd(), env })).stdout.trim();
}
