// How the SDK's size is measured, in one place for the lint budget (scripts/size.mjs) and the
// comparison with other SDKs (bench/sdk/size.mjs), so both figures mean the same thing: the whole
// public surface (`export * from "<specifier>"`) with every dependency, bundled by esbuild for the
// browser platform (the stricter of the two: no Node built-ins may be left external), minified,
// then gzipped at level 9.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/**
 * Bundles `specifier` as resolved from `resolveDir` and measures it.
 * `esbuildOptions` adds to the build (a metafile, another log level); the measured shape stays.
 * @returns {Promise<{ code: Uint8Array, minified: number, gzipped: number, metafile: import("esbuild").Metafile | undefined }>}
 */
export async function measureBundle(specifier, resolveDir, esbuildOptions = {}) {
  const result = await build({
    logLevel: "silent",
    ...esbuildOptions,
    stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2023",
    write: false,
  });
  const code = result.outputFiles[0].contents;
  return {
    code,
    minified: code.length,
    gzipped: gzipSync(code, { level: 9 }).length,
    metafile: result.metafile,
  };
}
