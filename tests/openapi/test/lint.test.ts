/**
 * Redocly (`recommended-strict`) and Spectral (`spectral:oas`) on the document the reference
 * server serves: no error, no warning (but the one justified in redocly.yaml); and Redocly's stock
 * rulesets give exactly what docs/api.md says they give.
 */
import { dirname } from "node:path";
import { startServer } from "@genvideo/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDocumentedServer } from "./support/served-document.js";
import { packageRoot, runTool, scratchDirectory } from "./support/tools.js";

let documentPath: string;
let document: Record<string, any>;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  const { served } = await startDocumentedServer(
    () => startServer({ env: { GENVIDEO_RENDERER: "fixture" } }),
    cleanups,
  );
  documentPath = served.path;
  document = served.document;
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

/** Redocly's findings with the repository's config, or with a stock ruleset (`extends`). */
async function redocly(path: string, extendsRuleset?: string): Promise<RedoclyProblem[]> {
  // A stock ruleset runs beside the document, away from this package's redocly.yaml, which
  // Redocly would otherwise find in the working directory and apply on top.
  const result = await runTool(
    "redocly",
    [
      "lint",
      path,
      "--format=json",
      extendsRuleset ? `--extends=${extendsRuleset}` : `--config=${packageRoot}/redocly.yaml`,
    ],
    extendsRuleset ? { cwd: dirname(path) } : {},
  );
  const start = result.stdout.indexOf("{");
  if (start < 0)
    throw new Error(`redocly printed no report (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return (JSON.parse(result.stdout.slice(start)) as { problems: RedoclyProblem[] }).problems;
}

interface SpectralFinding {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

async function spectral(path: string): Promise<SpectralFinding[]> {
  const result = await runTool("spectral", [
    "lint",
    path,
    "--ruleset",
    `${packageRoot}/.spectral.yaml`,
    "--format",
    "json",
    "--quiet",
    "--fail-severity",
    "hint",
  ]);
  const start = result.stdout.indexOf("[");
  if (start < 0)
    throw new Error(`spectral printed no report (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.slice(start)) as SpectralFinding[];
}

describe("linters on the served document", () => {
  it("passes Redocly recommended-strict, but the one justified finding", async () => {
    const problems = await redocly(documentPath);
    const unexpected = problems.filter(
      (problem) =>
        !(
          problem.ruleId === "no-illogical-composition-keywords" &&
          problem.severity === "warn" &&
          problem.location[0]?.pointer === "#/components/schemas/GenerationRequest/oneOf"
        ),
    );
    expect(
      unexpected.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`),
    ).toEqual([]);
    expect(problems.length).toBeLessThanOrEqual(3);
  });

  it.each([
    ["recommended-strict", "error"],
    ["recommended", "warn"],
  ])(
    "gives with Redocly's stock %s exactly what docs/api.md says: 3 findings, of one rule, at %s",
    async (ruleset, severity) => {
      const problems = await redocly(documentPath, ruleset);
      expect(
        problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}`),
      ).toEqual(
        Array(3).fill(
          `${severity} no-illogical-composition-keywords #/components/schemas/GenerationRequest/oneOf`,
        ),
      );
    },
  );

  it("passes Spectral's OpenAPI ruleset with no finding at all", async () => {
    const findings = await spectral(documentPath);
    expect(
      findings.map((finding) => `${finding.code} ${finding.path.join(".")}: ${finding.message}`),
    ).toEqual([]);
  });

  it("would catch a document that loses a description or a declared property", async () => {
    const broken = structuredClone(document);
    delete broken.paths["/api/gen/account"].get.description;
    broken.components.schemas.CreateTaskResponse.required.push("missing_field");
    const scratch = scratchDirectory("lint-broken");
    cleanups.push(scratch.remove);
    const path = scratch.write("openapi.json", JSON.stringify(broken));
    const [problems, findings] = await Promise.all([redocly(path), spectral(path)]);
    expect(problems.map((problem) => problem.ruleId)).toContain("no-required-schema-properties-undefined");
    expect(findings.map((finding) => finding.code)).toContain("operation-description");
  });
});
