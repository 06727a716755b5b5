import { defineConfig } from "vitest/config";

// One vitest run covers every package, so CI reads a single JSON report.
// Each package's own vitest.config.ts makes it a project.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*"],
  },
});
