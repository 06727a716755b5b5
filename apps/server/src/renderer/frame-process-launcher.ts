import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface FrameProcessLaunch {
  entry: string;
  execArgv: string[];
}

/*
 * Run from the TypeScript sources (tests, dev), the entry is frame-process.ts,
 * which Node 24 runs with its built-in type stripping; this hook maps the
 * sources' `./x.js` specifiers to the `./x.ts` files that exist.
 */
const SOURCE_RESOLVE_HOOK = `data:text/javascript,${encodeURIComponent(
  `import { registerHooks } from "node:module";
registerHooks({ resolve(specifier, context, next) {
  try { return next(specifier, context); } catch (error) {
    if (/^\\.\\.?\\//.test(specifier) && specifier.endsWith(".js")) return next(specifier.slice(0, -3) + ".ts", context);
    throw error;
  }
} });`,
)}`;

/**
 * Where the frame process's entry is: next to this file in the sources, or
 * `dist/renderer/frame-process.js` when the server is bundled (tsup entry
 * `src/renderer/frame-process.ts`). Undefined when it cannot be found: the
 * renderer then makes frames in-process, slower for the event loop but working.
 */
export function locateFrameProcess(explicitEntry?: string): FrameProcessLaunch | undefined {
  if (explicitEntry) return { entry: explicitEntry, execArgv: [] };
  const fromSources = import.meta.url.endsWith(".ts");
  const url = fromSources
    ? new URL("./frame-process.ts", import.meta.url)
    : new URL("./renderer/frame-process.js", import.meta.url);
  if (url.protocol !== "file:") return undefined;
  const entry = fileURLToPath(url);
  if (!existsSync(entry)) return undefined;
  return {
    entry,
    execArgv: fromSources ? ["--disable-warning=ExperimentalWarning", "--import", SOURCE_RESOLVE_HOOK] : [],
  };
}
