/**
 * How to run this CLI again, the way it was run now, so that every command a
 * program prints runs as printed: `pnpm genvideo-server` in a checkout or a
 * pnpm project (pnpm runs a dependency's bin by name), `npx @genvideo/server`
 * under npm (the package's name: `npx genvideo-server` would fetch another
 * package), `yarn genvideo-server`, `bunx genvideo-server`, and the bare name
 * for a global install or a direct `node` run.
 */

/** The package managers set `npm_config_user_agent` in the scripts and binaries they run. */
export function cliInvocation(env: Record<string, string | undefined>): string {
  const agent = env.npm_config_user_agent ?? "";
  if (agent.startsWith("pnpm/")) return "pnpm genvideo-server";
  if (agent.startsWith("yarn/")) return "yarn genvideo-server";
  if (agent.startsWith("bun/")) return "bunx genvideo-server";
  if (agent.startsWith("npm/")) return "npx @genvideo/server";
  return "genvideo-server";
}
