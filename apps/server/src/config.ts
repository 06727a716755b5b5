/** Reads the server's settings from the environment; a bad value stops the start with one line naming it. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ServerConfig {
  port: number;
  host: string;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  return {
    port: integerSetting(env, "PORT", 8787, 0, 65_535),
    host: env.HOST?.trim() || "127.0.0.1",
  };
}

function integerSetting(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
