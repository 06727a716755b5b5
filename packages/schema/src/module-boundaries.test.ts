import { describe, expect, it } from "vitest";

// Each module is its own file in dist and the package has no side effects, so a client's bundler
// keeps only the modules it reaches. These tests keep the client-facing modules from reaching
// image parsing or the OpenAPI builder, and every module free of `node:` imports (browsers).
const fs = (await import("node:fs" as string)) as {
  readFileSync(path: URL, encoding: "utf8"): string;
  readdirSync(path: URL): string[];
};
const sourceDirectory = new URL("./", import.meta.url);
const sources = fs
  .readdirSync(sourceDirectory)
  .filter((file) => file.endsWith(".ts") && !file.includes(".test") && !file.startsWith("test-"));

function importsOf(file: string): string[] {
  const text = fs.readFileSync(new URL(file, sourceDirectory), "utf8");
  // Type-only imports vanish from the output; only value imports pull modules in.
  return [...text.matchAll(/^(?:import|export)(?! type)[^;]*?from "([^"]+)";/gms)].map(
    (match) => match[1] as string,
  );
}

function reachableFrom(file: string, seen = new Set<string>()): Set<string> {
  for (const specifier of importsOf(file)) {
    if (!specifier.startsWith("./")) continue;
    const target = specifier.slice(2).replace(/\.js$/, ".ts");
    if (!seen.has(target)) {
      seen.add(target);
      reachableFrom(target, seen);
    }
  }
  return seen;
}

describe("module boundaries", () => {
  it.each([
    "catalog.ts",
    "error-codes.ts",
    "errors.ts",
    "http.ts",
    "limits.ts",
    "responses.ts",
    "webhook.ts",
    "webhook-events.ts",
  ])("%s reaches neither image parsing nor the OpenAPI builder", (file) => {
    const reached = [...reachableFrom(file)];
    expect(reached.filter((module) => /^(image-|base64|request|openapi)/.test(module))).toEqual([]);
  });

  it("keeps plain constants free of zod", () => {
    for (const file of ["catalog.ts", "error-codes.ts", "http.ts", "limits.ts"]) {
      expect(importsOf(file), file).not.toContain("zod/mini");
    }
  });

  it("never imports node: modules or anything but zod", () => {
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      for (const specifier of importsOf(file))
        expect(specifier, file).toMatch(/^(\.\/[a-z0-9-]+\.js|zod\/mini)$/);
    }
  });
});
