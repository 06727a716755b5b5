import { defineConfig } from "vitest/config";

const jsonReport = process.env.GENVIDEO_TEST_REPORT;

/**
 * A suite of the packages as customers get them (this one, tests/release): nothing resolves to the
 * workspace's sources, `support/global-setup.ts` prepares the packages once, and files run one
 * after another, since each installs projects and starts processes, on 2 CI cores.
 */
export function customerSuiteConfig(timeouts: { testTimeout: number; hookTimeout: number }) {
  return defineConfig({
    test: {
      include: ["*.test.ts"],
      globalSetup: ["./support/global-setup.ts"],
      fileParallelism: false,
      ...timeouts,
      ...(jsonReport ? { reporters: ["default", ["json", { outputFile: jsonReport }]] } : {}),
    },
  });
}
