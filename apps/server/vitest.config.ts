import { genvideoProject } from "../../vitest.shared.ts";

export default genvideoProject("server");
