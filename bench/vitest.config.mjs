import { defineConfig } from "vitest/config";

const jsonReport = process.env.GENVIDEO_TEST_REPORT;

// The benchmarks' smoke runs (`pnpm bench:smoke`), apart from `pnpm test`: they measure built code
// and start servers, so they run after a build, in a step of their own.
export default defineConfig({
  test: {
    include: ["smoke.test.mjs"],
    maxConcurrency: 2,
    // A smoke run takes seconds; on a machine shared with other work, a minute or two.
    testTimeout: 240_000,
    ...(jsonReport ? { reporters: ["default", ["json", { outputFile: jsonReport }]] } : {}),
  },
});
