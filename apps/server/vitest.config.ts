import { genvideoProject } from "../../vitest.shared.ts";

// Many server tests start the real server in a child process: on a loaded machine that takes seconds.
export default genvideoProject("server", { testTimeout: 30_000 });
