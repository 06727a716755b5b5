// knip as `pnpm lint` runs it, on a small package with one of each thing it must find: a file
// nothing imports, an export nobody uses, a dependency nothing needs.
import { afterAll, beforeAll, expect, it } from "vitest";
import { fixtureTree, run } from "./support.ts";

let tree: { root: string; remove: () => void };
let result: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  tree = fixtureTree({
    "package.json": JSON.stringify({
      name: "fixture",
      private: true,
      type: "module",
      exports: { ".": "./src/index.ts" },
      dependencies: { "left-pad": "^1.3.0" },
    }),
    "src/index.ts": 'export { used } from "./helpers.js";\n',
    "src/helpers.ts": "export const used = 1;\nexport const forgotten = 2;\n",
    "src/orphan.ts": "export const orphan = 3;\n",
  });
  result = await run("knip", ["--no-progress", "--reporter", "json"], tree.root);
});
afterAll(() => tree.remove());

it("fails on an unused file, an unused export and an unused dependency, naming each", () => {
  expect(result.code).not.toBe(0);
  const report = JSON.parse(result.stdout) as {
    issues: {
      file: string;
      files?: unknown;
      exports: { name: string }[];
      dependencies: { name: string }[];
    }[];
  };
  const byFile = new Map(report.issues.map((issue) => [issue.file, issue]));
  expect([...byFile.keys()].sort()).toEqual(["package.json", "src/helpers.ts", "src/orphan.ts"]);
  expect(byFile.get("src/helpers.ts")?.exports.map((entry) => entry.name)).toEqual(["forgotten"]);
  expect(byFile.get("package.json")?.dependencies.map((entry) => entry.name)).toEqual(["left-pad"]);
});
