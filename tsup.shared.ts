import { defineConfig, type Options } from "tsup";

/**
 * The one tsup setup for every package: ESM only, modern Node and browsers,
 * no declarations (TypeScript 7 has no compiler API, so `tsc` writes them).
 */
export function genvideoBuild(entry: Options["entry"] = ["src/index.ts"], overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ["esm"],
    target: "es2023",
    platform: "neutral",
    sourcemap: true,
    clean: false,
    dts: false,
    treeshake: true,
    // tsup strips `node:` by default, which breaks prefix-only builtins such as `node:sqlite`.
    removeNodeProtocol: false,
    ...overrides,
  });
}
