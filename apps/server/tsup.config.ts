import { genvideoBuild } from "../../tsup.shared.ts";

// The server runs on Node: its dependencies stay external, and the CLI gets a shebang.
// The frame process is an entry of its own, built to dist/renderer/frame-process.js: the
// renderer starts it as a child process, found relative to the chunk that holds the launcher
// (src/renderer/frame-process-launcher.ts). Without it frames would be made in the server process.
export default genvideoBuild(
  {
    cli: "src/cli.ts",
    index: "src/index.ts",
    "renderer/frame-process": "src/renderer/frame-process.ts",
  },
  {
    platform: "node",
    target: "node22",
    clean: true,
  },
);
