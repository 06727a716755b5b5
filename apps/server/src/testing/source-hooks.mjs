// Lets Node run the server from its TypeScript sources, as the tests do: Node
// strips the types itself, and this maps the `.js` of a relative import to
// the `.ts` file beside it (TypeScript's nodenext convention). Together with
// `--conditions=@genvideo/source` the workspace packages load from src too,
// so tests need no build and always run the code being changed.
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
