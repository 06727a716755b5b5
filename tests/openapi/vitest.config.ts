import { genvideoProject } from "../../vitest.shared.ts";

// Tools start as processes (the reference server, Prism, the linters, the generators).
export default genvideoProject("openapi", { testTimeout: 120_000 });
