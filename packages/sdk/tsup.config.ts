import { genvideoBuild } from "../../tsup.shared.ts";

// `receiver-check` and `conformance` are entries of their own, so the checks never weigh on an
// application's bundle. `testing` is the receiver check's deprecated first name, a re-export kept
// for one minor release.
export default genvideoBuild({
  index: "src/index.ts",
  "conformance/index": "src/conformance/index.ts",
  "receiver-check/index": "src/receiver-check/index.ts",
  "testing/index": "src/testing/index.ts",
});
