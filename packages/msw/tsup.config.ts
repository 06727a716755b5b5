import { genvideoBuild } from "../../tsup.shared.ts";

// msw is a peer dependency and vitest belongs to the consumer's suite: neither is bundled.
export default genvideoBuild(["src/index.ts", "src/vitest.ts"], { external: ["msw", "vitest"] });
