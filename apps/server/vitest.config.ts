import { genvideoProject } from "../../vitest.shared.ts";

// Many server tests start the real server in a child process: on a loaded machine that takes seconds.
// The PostgreSQL suites are a project of their own (vitest.postgres.config.ts): only they start a cluster.
export default genvideoProject("server", {
  testTimeout: 30_000,
  exclude: ["**/node_modules/**", "test/postgres/**"],
});
