// Lets Node run the reference server from its TypeScript sources: Node strips the types, and this
// maps a relative `.js` import from a `.ts` file to the `.ts` beside it (nodenext's convention).
// With `--conditions=@genvideo/source` the workspace packages load from their sources too.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      const candidate = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(fileURLToPath(candidate))) return nextResolve(candidate.href, context);
    }
    return nextResolve(specifier, context);
  },
});
