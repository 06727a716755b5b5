type ProcessLike = { env?: Record<string, string | undefined> };

/**
 * Reads an environment variable where there is one (Node, Bun, Deno's `process`), and
 * `undefined` elsewhere (Workers, browsers). Deno without `--allow-env` throws on access.
 */
export function readEnvironment(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: ProcessLike }).process?.env?.[name];
    return value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * Whether this code runs in a browser page, where an API key would be visible to every visitor.
 * `document` tells a page apart from Deno, Bun and Workers, which have no DOM.
 */
export function isBrowser(): boolean {
  return typeof window !== "undefined" && typeof document !== "undefined";
}
