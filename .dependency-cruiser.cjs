// The layering docs/architecture.md describes, kept by `pnpm lint` rather than by discipline.
// tests/architecture/dependency-rules.test.ts breaks each rule on purpose in a fixture tree
// and checks that it is reported, so a rule that stops matching anything fails there.

/** Tests and what only tests use: never part of what a package ships. */
const TEST_FILES = ["\\.test\\.ts$", "\\.test-d\\.ts$", "(^|/)test/"];
/** The schema's modules a client bundle keeps: plain constants and response types, no parsing of images. */
const SCHEMA_CLIENT_MODULES =
  "^packages/schema/src/(catalog|error-codes|errors|http|limits|responses|webhook|webhook-events)\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "An import cycle ties modules that should be layered; move the shared part into a module both import.",
      from: {},
      to: { circular: true },
    },
    {
      name: "engine-no-node",
      severity: "error",
      comment:
        "The engine runs in browsers, workers and msw as well as on Node: it reaches the outside through its ports, never node: modules.",
      from: { path: "^packages/engine/src/", pathNot: TEST_FILES },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "engine-domain-not-http",
      severity: "error",
      comment:
        "The engine's domain returns or raises its own outcomes; http/ maps them to statuses and bodies, never the other way round.",
      from: { path: "^packages/engine/src/(admin|credits|idempotency|keys|leases|tasks|video|webhooks)/" },
      to: { path: "^packages/engine/src/http/" },
    },
    {
      name: "server-composition-on-top",
      severity: "error",
      comment:
        "composition/ and cli/ put the server's parts together (store/, webhooks/, video/, ...): no part imports what assembles it, so each stays usable and testable alone.",
      from: {
        path: "^apps/server/src/[^/]+/",
        pathNot: [...TEST_FILES, "^apps/server/src/(composition|cli)/"],
      },
      to: { path: "^apps/server/src/(composition|cli)/" },
    },
    {
      name: "server-dashboard-mounted-not-imported",
      severity: "error",
      comment:
        "The dashboard is one app the server mounts: composition/ and cli/ reach into it, no other part does. What it shares with them lives in the part it comes from.",
      from: {
        path: "^apps/server/src/[^/]+/",
        pathNot: [...TEST_FILES, "^apps/server/src/(composition|cli|dashboard)/"],
      },
      to: { path: "^apps/server/src/dashboard/" },
    },
    {
      name: "server-logging-below-config",
      severity: "error",
      comment:
        "Logging is below the configuration: the settings name log levels from logging/, logging never reads the configuration (an arrow up).",
      from: { path: "^apps/server/src/logging/", pathNot: TEST_FILES },
      to: { path: "^apps/server/src/config(\\.ts$|/)" },
    },
    {
      name: "sdk-not-engine",
      severity: "error",
      comment: "The SDK is what customers install: it depends on the schema only, never on the service.",
      from: { path: "^packages/sdk/src/", pathNot: TEST_FILES },
      to: { path: ["^packages/(engine|msw)/", "^apps/"] },
    },
    {
      name: "shipped-code-not-test-support",
      severity: "error",
      comment:
        "Tests and their helpers are neither built nor published: shipped code never imports them. A package's testing entry (src/testing/) may use its sources, never the other way round; other packages use it by its published name.",
      from: { path: "^((packages|apps)/[^/]+)/src/", pathNot: [...TEST_FILES, "/src/testing/"] },
      to: { path: [...TEST_FILES, "^$1/src/testing/"] },
    },
    {
      name: "schema-only-zod",
      severity: "error",
      comment:
        "The schema runs wherever a client does (browsers included): its modules import each other and zod, nothing else.",
      from: { path: "^packages/schema/src/", pathNot: [...TEST_FILES, "/src/testing/"] },
      to: { pathNot: ["^packages/schema/src/", "node_modules/zod/"] },
    },
    {
      name: "schema-constants-no-zod",
      severity: "error",
      comment: "Plain constants cost a client no zod: keep them free of it.",
      from: { path: "^packages/schema/src/(catalog|error-codes|http|limits)\\.ts$" },
      to: { path: "node_modules/zod/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "schema-client-modules-stay-light",
      severity: "error",
      comment:
        "Each schema module is its own file in dist and the package has no side effects, so a client's bundler keeps only what it reaches: the client-facing modules must not reach image parsing or the OpenAPI builder.",
      from: { path: SCHEMA_CLIENT_MODULES },
      to: { path: "^packages/schema/src/(image-|base64|request|openapi)", reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // node_modules are not cruised, but stay as the ends of dependencies, for the rules about zod.
    exclude: { path: "(^|/)dist/" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@genvideo/source", "import", "types", "default"],
      extensions: [".ts", ".mjs", ".js"],
    },
  },
};
