import { genvideoBuild } from "../../tsup.shared.ts";

// One output file per module (no bundling): with `"sideEffects": false`, a client's bundler then
// drops whole modules it does not use, so importing response schemas never pulls in image parsing
// or the OpenAPI builder.
export default genvideoBuild(
  ["src/**/*.ts", "!src/**/*.test.ts", "!src/**/*.test-d.ts", "!src/**/test-*.ts"],
  {
    bundle: false,
    treeshake: false,
  },
);
