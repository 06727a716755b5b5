/**
 * The API's paths and the methods each takes, so that a known path asked with another method
 * answers 405 with `Allow` instead of the unknown-route 404 (docs/api.md, "Errors").
 */
export class KnownPaths {
  readonly #routes: { pattern: RegExp; methods: Set<string> }[] = [];

  /** Registers `path` (Hono syntax: `:name` matches one segment) for `method`. */
  add(method: string, path: string): void {
    const source = `^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:\w+/g, "[^/]+")}$`;
    let route = this.#routes.find((candidate) => candidate.pattern.source === source);
    if (!route) {
      route = { pattern: new RegExp(source), methods: new Set() };
      this.#routes.push(route);
    }
    route.methods.add(method.toUpperCase());
    // Hono answers HEAD with its GET handler.
    if (method.toUpperCase() === "GET") route.methods.add("HEAD");
  }

  /** The methods `path` takes, in a stable order; empty when no route has that path. */
  methodsOf(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.#routes) {
      if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    }
    return [...methods].sort();
  }
}
