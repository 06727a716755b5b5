import { genvideoBuild } from "../../tsup.shared.ts";

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
  },
);
