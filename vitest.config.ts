import { defineConfig } from "vitest/config";

// One vitest run covers every package, so CI reads a single JSON report.
// Each package's own vitest.config.ts makes it a project.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: vitest runs outside turbo, so turbo never caches on it.
const jsonReport = process.env.GENVIDEO_TEST_REPORT;

export default defineConfig({
  test: {
    projects: [
      "packages/*",
      "apps/*",
      "tests/*",
      // Run by `pnpm test:ecosystem` alone: it packs the packages and installs them into fresh projects.
      "!tests/ecosystem",
      // Run by `pnpm test:release` alone: it publishes to a local registry and installs from it.
      "!tests/release",
      // Run by `pnpm test:container` alone: it builds the server's image and runs it with podman.
      "!tests/container",
      "examples",
      "apps/server/vitest.postgres.config.ts",
    ],
    // .ci/run sets GENVIDEO_TEST_REPORT to count passed and failed tests from the JSON report.
    ...(jsonReport ? { reporters: ["default", ["json", { outputFile: jsonReport }]] } : {}),
  },
});
