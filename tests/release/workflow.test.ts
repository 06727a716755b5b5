/**
 * The release workflow's publish step, as far as it runs off the forge: `pnpm publish` (what
 * `changeset publish` runs) with the environment the workflow gives that step. Asked for
 * provenance outside a forge that can vouch for the build, pnpm refuses to publish; not asked, it
 * publishes without. So the refusal shows that the workflow's setting reaches pnpm.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { run } from "../ecosystem/support/commands.js";
import { REPO_ROOT } from "../ecosystem/support/packages.js";
import { shellEnvironment } from "./support/environment.js";

const registryUrl = inject("registryUrl");

interface Workflow {
  jobs: Record<string, { steps: { uses?: string; env?: Record<string, string> }[] }>;
}

/** The publish step's environment, less the secrets (here the probe's .npmrc holds the login). */
function publishStepEnvironment(): Record<string, string> {
  const workflow = parse(readFileSync(join(REPO_ROOT, ".github/workflows/release.yml"), "utf8")) as Workflow;
  const step = workflow.jobs.release?.steps.find(({ uses }) => uses?.startsWith("changesets/action@"));
  if (!step?.env) throw new Error("no changesets/action step with an environment in release.yml");
  return Object.fromEntries(Object.entries(step.env).filter(([, value]) => !String(value).includes("${{")));
}

/** `pnpm publish` of a throwaway package in the @genvideo scope, to the rehearsal registry. */
async function publishProbe(version: string, environment: Record<string, string>) {
  const directory = join(inject("scratch"), `provenance-probe-${version}`);
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, "package.json"),
    JSON.stringify({ name: "@genvideo/provenance-probe", version, license: "MIT", files: ["index.js"] }),
  );
  writeFileSync(join(directory, "index.js"), "export {};\n");
  const host = registryUrl.replace(/^https?:/, "");
  writeFileSync(
    join(directory, ".npmrc"),
    `registry=${registryUrl}/\n${host}/:_authToken=${inject("registryToken")}\n`,
  );
  const env = shellEnvironment(environment);
  // Off any forge, whichever runs this suite (ci.yml runs it on GitHub's runners).
  for (const name of ["GITHUB_ACTIONS", "GITLAB_CI", "ACTIONS_ID_TOKEN_REQUEST_URL"]) delete env[name];
  const result = await run("pnpm", ["publish", "--access", "public", "--no-git-checks"], {
    cwd: directory,
    env,
  });
  const published = await fetch(`${registryUrl}/@genvideo%2fprovenance-probe/${version}`);
  return { ...result, output: `${result.stdout}\n${result.stderr}`, published: published.status === 200 };
}

describe("the release workflow's publish step", () => {
  it("asks pnpm publish for provenance: off the forge, pnpm refuses to publish without it", async () => {
    const environment = publishStepEnvironment();
    const result = await publishProbe("0.0.1", environment);
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toMatch(/ERR_PNPM_PROVENANCE_\w+/);
    expect(result.published).toBe(false);
  });

  it("publishes the same package once the provenance setting is taken out", async () => {
    const environment = Object.fromEntries(
      Object.entries(publishStepEnvironment()).filter(([name]) => !/provenance/i.test(name)),
    );
    const result = await publishProbe("0.0.2", environment);
    expect(result.code, result.output).toBe(0);
    expect(result.published).toBe(true);
  });
});
