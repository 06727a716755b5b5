// knip as `pnpm lint` runs it: once by default, on a small package with one of each thing it must
// find (a file nothing imports, an export nobody uses, a dependency nothing needs); and once with
// --production, on a package whose only user of an export is its test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureTree, run } from "./support.ts";

type KnipReport = {
  issues: {
    file: string;
    files?: unknown;
    exports: { name: string }[];
    dependencies: { name: string }[];
    devDependencies: { name: string }[];
  }[];
};

/** The fixture's package.json: one entry, src/index.ts, and the dependencies given. */
function packageJson(dependencies: Record<string, Record<string, string>>): string {
  return JSON.stringify({
    name: "fixture",
    private: true,
    type: "module",
    exports: { ".": "./src/index.ts" },
    ...dependencies,
  });
}

describe("default run", () => {
  let tree: { root: string; remove: () => void };
  let result: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    tree = fixtureTree({
      "package.json": packageJson({ dependencies: { "left-pad": "^1.3.0" } }),
      "src/index.ts": 'export { used } from "./helpers.js";\n',
      "src/helpers.ts": "export const used = 1;\nexport const forgotten = 2;\n",
      "src/orphan.ts": "export const orphan = 3;\n",
    });
    result = await run("knip", ["--no-progress", "--reporter", "json"], tree.root);
  });
  afterAll(() => tree.remove());

  it("fails on an unused file, an unused export and an unused dependency, naming each", () => {
    expect(result.code).not.toBe(0);
    const report = JSON.parse(result.stdout) as KnipReport;
    const byFile = new Map(report.issues.map((issue) => [issue.file, issue]));
    expect([...byFile.keys()].sort()).toEqual(["package.json", "src/helpers.ts", "src/orphan.ts"]);
    expect(byFile.get("src/helpers.ts")?.exports.map((entry) => entry.name)).toEqual(["forgotten"]);
    expect(byFile.get("package.json")?.dependencies.map((entry) => entry.name)).toEqual(["left-pad"]);
  });
});

describe("production run", () => {
  // Laid out as knip.jsonc marks the packages: src/ ships (`!`), test/ support does not.
  let tree: { root: string; remove: () => void };
  const knip = (...flags: string[]) =>
    run("knip", ["--no-progress", "--reporter", "json", ...flags], tree.root);

  beforeAll(() => {
    tree = fixtureTree({
      "package.json": packageJson({ devDependencies: { vitest: "^5.1.0" } }),
      "knip.json": JSON.stringify({ project: ["src/**/*.ts!", "test/**/*.ts"] }),
      "src/index.ts": 'export { shipped } from "./helpers.js";\n',
      "src/helpers.ts": "export const shipped = 1;\nexport const testedOnly = 2;\n",
      "src/helpers.test.ts": [
        'import { expect, it } from "vitest";',
        'import { EXPECTED } from "../test/support/expected.js";',
        'import { testedOnly } from "./helpers.js";',
        'it("adds", () => expect(testedOnly).toBe(EXPECTED));',
        "",
      ].join("\n"),
      "test/support/expected.ts": "export const EXPECTED = 2;\n",
    });
  });
  afterAll(() => tree.remove());

  it("passes the default run, where the test counts as a user of the export", async () => {
    const result = await knip();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("fails on the export only a test uses, and on nothing else (test support is not production code)", async () => {
    const result = await knip("--production");
    expect(result.code).not.toBe(0);
    const report = JSON.parse(result.stdout) as KnipReport;
    expect(report.issues.map((issue) => issue.file)).toEqual(["src/helpers.ts"]);
    expect(report.issues[0]?.exports.map((entry) => entry.name)).toEqual(["testedOnly"]);
  });
});
