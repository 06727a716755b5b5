import { genvideoBuild } from "../../tsup.shared.ts";

// `receiver-check` is an entry of its own, so the receiver check never weighs on an application's
// bundle. `testing` is its deprecated first name, a re-export kept for one minor release.
export default genvideoBuild({
  index: "src/index.ts",
  "receiver-check/index": "src/receiver-check/index.ts",
  "testing/index": "src/testing/index.ts",
});
