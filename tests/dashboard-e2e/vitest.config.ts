import { genvideoProject } from "../../vitest.shared.ts";

// One real server and one Chromium for the whole file; each step waits on the service clock at 600x.
export default genvideoProject("dashboard-e2e", { testTimeout: 60_000 });
