/**
 * A customer's test suite on @genvideo/msw, installed by npm from the tarballs: the README's own
 * vitest example, verbatim, and the mock without a runner on Node and on Bun.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { run, runOk } from "./support/commands.js";
import { createProject } from "./support/project.js";
import { readmeExample } from "./support/readme-example.js";

const tarballs = inject("tarballs");
const runtimes = inject("runtimes");
const scratch = inject("scratch");
const project = join(scratch, "msw-customer");

beforeAll(async () => {
  const { "@genvideo/server": _server, ...libraries } = tarballs;
  await createProject({
    directory: project,
    tarballs: libraries,
    registry: { msw: "^3.0.5", vitest: "^5.1.0" },
    fixtures: join(import.meta.dirname, "fixtures/msw"),
  });
});

describe("@genvideo/msw from its tarball", () => {
  it("runs the README's complete test with vitest", async () => {
    // The README shipped in the tarball, the one customers read on npm.
    const readme = readFileSync(join(project, "node_modules/@genvideo/msw/README.md"), "utf8");
    writeFileSync(join(project, "readme-example.test.ts"), readmeExample(readme, "## A complete test"));
    const result = await run(join(project, "node_modules/.bin/vitest"), ["run", "readme-example.test.ts"], {
      cwd: project,
      env: { ...process.env, CI: "true" },
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its summary.
    expect(result.stdout.replace(/\u001b\[[\d;]*m/g, "")).toMatch(/Tests\s+2 passed/);
  });

  it.each([
    ["Node, through msw", () => runtimes.node24, "msw"],
    ["Node, as the client's fetch", () => runtimes.node24, "fetch"],
    // msw's own interception fails on Bun ("Failed to replace a global value at _wrapHandle"); the
    // msw README sends Bun users to `mock.fetch`, and this keeps that advice true.
    ["Bun, as the client's fetch", () => runtimes.bun, "fetch"],
  ])("mocks the API for the SDK without a runner on %s", async (_name, executable, mode) => {
    const { stdout } = await runOk(executable(), ["mock-flow.mjs", mode], { cwd: project });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) as string);
    expect(result).toEqual({ create: true, poll: true, verify: true });
  });
});
