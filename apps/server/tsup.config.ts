import { genvideoBuild } from "../../tsup.shared.ts";

// The server runs on Node: its dependencies stay external, and the CLI gets a shebang.
// `index` is the server as a library; `testing/*` start it from other packages' suites
// (`@genvideo/server/testing`), so they are built with declarations like the library.
// The frame process is an entry of its own, built to dist/renderer/frame-process.js: the
// renderer starts it as a child process, found relative to the chunk that holds the launcher
// (src/renderer/frame-process-launcher.ts). Without it frames would be made in the server process.
export default genvideoBuild(
  {
    cli: "src/cli.ts",
    index: "src/index.ts",
    "renderer/frame-process": "src/renderer/frame-process.ts",
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
