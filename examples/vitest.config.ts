import { genvideoProject } from "../vitest.shared.ts";

// Each example's test runs it as a customer would: against the reference server or the mock.
export default genvideoProject("examples", {
  testTimeout: 30_000,
  include: ["*/**/*.test.ts"],
  exclude: ["**/node_modules/**"],
});
