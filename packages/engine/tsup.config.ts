import { genvideoBuild } from "../../tsup.shared.ts";

// `./testing` is the store conformance suite: vitest belongs to the consumer's suite, never bundled.
export default genvideoBuild(["src/index.ts", "src/rules.ts", "src/testing/index.ts"], {
  external: ["vitest"],
});
