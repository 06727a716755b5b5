import { defineConfig } from "vitest/config";

const jsonReport = process.env.GENVIDEO_TEST_REPORT;

// The packages as customers get them: nothing here resolves to the workspace's sources.
// Files run one after another: each installs a project and starts processes, on 2 CI cores.
export default defineConfig({
  test: {
    include: ["*.test.ts"],
    globalSetup: ["./support/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
    ...(jsonReport ? { reporters: ["default", ["json", { outputFile: jsonReport }]] } : {}),
  },
});
