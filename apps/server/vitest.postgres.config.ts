import { genvideoProject } from "../../vitest.shared.ts";

// The suites that need a PostgreSQL server: a throwaway cluster starts once for all of them.
export default genvideoProject("server-postgres", {
  testTimeout: 60_000,
  include: ["test/postgres/**/*.test.ts"],
  globalSetup: ["test/postgres/global-setup.ts"],
});
