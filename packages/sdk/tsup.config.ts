import { genvideoBuild } from "../../tsup.shared.ts";

// `testing` is an entry of its own, so the receiver check never weighs on an application's bundle.
export default genvideoBuild({ index: "src/index.ts", "testing/index": "src/testing/index.ts" });
