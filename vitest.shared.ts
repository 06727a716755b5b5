import { defineProject } from "vitest/config";

export interface ProjectOverrides {
  testTimeout?: number;
  /** Test files of this project (default: every `*.test.ts` under src/ and test/). */
  include?: string[];
  /** Files another project of the same package runs. */
  exclude?: string[];
  /** Modules that run once before the project's tests (a database server, say). */
  globalSetup?: string[];
}

/**
 * Settings every package's tests share: workspace packages resolve to their
 * sources through the `@genvideo/source` export condition, so tests never need
 * a build first and always see the code being changed.
 */
export function genvideoProject(name: string, overrides: ProjectOverrides = {}) {
  return defineProject({
    resolve: { conditions: ["@genvideo/source"] },
    ssr: { resolve: { conditions: ["@genvideo/source"] } },
    test: {
      name,
      include: overrides.include ?? ["src/**/*.test.ts", "test/**/*.test.ts"],
      ...(overrides.exclude ? { exclude: overrides.exclude } : {}),
      ...(overrides.globalSetup ? { globalSetup: overrides.globalSetup } : {}),
      typecheck: { enabled: true, include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"] },
      testTimeout: overrides.testTimeout ?? 10_000,
      // Hooks start servers and databases; above the reference server's own start timeout (45 s),
      // so a start that stalls reports its output instead of a bare hook timeout.
      hookTimeout: 60_000,
    },
  });
}
