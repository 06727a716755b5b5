import { genvideoBuild } from "../../tsup.shared.ts";

// The server runs on Node: its dependencies stay external, and the CLI gets a shebang.
export default genvideoBuild(["src/cli.ts", "src/index.ts"], {
  platform: "node",
  target: "node22",
  clean: true,
});
