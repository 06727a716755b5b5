import { defineProject } from "vitest/config";

/**
 * Settings every package's tests share: workspace packages resolve to their
 * sources through the `@genvideo/source` export condition, so tests never need
 * a build first and always see the code being changed.
 */
export function genvideoProject(name: string, overrides: { testTimeout?: number } = {}) {
  return defineProject({
    resolve: { conditions: ["@genvideo/source"] },
    ssr: { resolve: { conditions: ["@genvideo/source"] } },
    test: {
      name,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      typecheck: { enabled: true, include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"] },
      testTimeout: overrides.testTimeout ?? 10_000,
    },
  });
}
