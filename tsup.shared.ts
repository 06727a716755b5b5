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
    // The libraries publish src/ beside dist/ and their maps point into it: no second copy inside the maps.
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
    // Every build starts from an empty dist, so no chunk of an earlier build is ever published.
    clean: true,
    dts: false,
    treeshake: true,
    // tsup strips `node:` by default, which breaks prefix-only builtins such as `node:sqlite`.
    removeNodeProtocol: false,
    ...overrides,
  });
}
