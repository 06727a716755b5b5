import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { genvideoBuild } from "../../tsup.shared.ts";

/**
 * The /docs renderer: Scalar's self-contained browser bundle, copied into dist/ with its licence, so
 * the published server serves it without depending on Scalar's package (and its build tool chain).
 */
function copyDocsRenderer(): void {
  const require = createRequire(import.meta.url);
  const main = require.resolve("@scalar/api-reference");
  const manifest = JSON.parse(readFileSync(join(dirname(main), "../package.json"), "utf8"));
  mkdirSync("dist/docs-renderer", { recursive: true });
  // Without the source map's name: the 20 MB map is not shipped, and a browser must not ask for it.
  const bundle = readFileSync(join(dirname(main), "browser/standalone.js"), "utf8");
  writeFileSync("dist/docs-renderer/scalar.js", bundle.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"));
  writeFileSync(
    "dist/docs-renderer/LICENSE.txt",
    `scalar.js is the browser bundle of ${manifest.name} ${manifest.version} (${manifest.repository?.url ?? "https://github.com/scalar/scalar"}),\n` +
      `licensed under the ${manifest.license} licence: https://github.com/scalar/scalar/blob/main/LICENSE\n`,
  );
}

// The server runs on Node: its dependencies stay external, and the CLI gets a shebang.
// `index` is the server as a library; `testing/*` start it from other packages' suites
// (`@genvideo/server/testing`), so they are built with declarations like the library.
export default genvideoBuild(
  {
    cli: "src/cli.ts",
    index: "src/index.ts",
    "testing/reference-server": "src/testing/reference-server.ts",
    "testing/browser": "src/testing/browser.ts",
    "testing/postgres-cluster": "src/testing/postgres-cluster.ts",
  },
  {
    platform: "node",
    target: "node22",
    // The testing entries' browser driver is an optional peer of the consumer's suite.
    external: ["playwright-core"],
    // The server's tarball holds dist/ only: its maps carry their sources, for the stack traces
    // the CLI prints with source maps on.
    esbuildOptions(options) {
      options.sourcesContent = true;
    },
    onSuccess: async () => copyDocsRenderer(),
  },
);
