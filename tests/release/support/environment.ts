/**
 * The environment of a command run as a person would run it in a shell: without the npm_config_*
 * and npm_package_* variables a package manager hands the scripts it runs (this suite runs under
 * pnpm), which would otherwise outrank the .npmrc under test.
 */
export function shellEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_(config|package|lifecycle)_/i.test(name) && name !== "npm_execpath") env[name] = value;
  }
  return { ...env, TURBO_TELEMETRY_DISABLED: "1", ...extra };
}
