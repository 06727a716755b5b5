import { genvideoProject } from "../../vitest.shared.ts";

// Each test runs a lint tool over a fixture tree: a few seconds on a loaded machine.
export default genvideoProject("architecture", { testTimeout: 60_000 });
