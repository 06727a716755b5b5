/**
 * The README's "Install" section as a person follows it before the first release: the pack
 * command, then its npm lines run as written (with the clone's path for `<clone>`) in a fresh
 * project, which can then import what they installed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, inject, it } from "vitest";
import { runOk } from "./support/commands.js";
import { REPO_ROOT } from "./support/packages.js";

const scratch = inject("scratch");

function installSection(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("## Install\n");
  return readme.slice(start, readme.indexOf("\n## ", start + 1));
}

it("packs with `pnpm pack:packages` and installs with the README's npm lines, as written", async () => {
  const section = installSection();
  expect(section).toContain("pnpm install && pnpm pack:packages");
  // The packages are built already (the suite's script builds first): the pack step itself.
  const printed = execFileSync("node", ["scripts/pack-packages.mjs"], { cwd: REPO_ROOT, encoding: "utf8" });
  const lines = [...section.matchAll(/^npm install .*<clone>\/packed\/.*$/gm)].map(([line]) => line);
  expect(lines.length).toBe(2);
  const project = join(scratch, "readme-install");
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    '{ "name": "readme-install", "private": true, "type": "module" }\n',
  );
  for (const line of lines) {
    const command = line.replaceAll("<clone>", REPO_ROOT);
    // What the pack command printed is what the README says.
    expect(printed).toContain(command);
    const [, ...args] = command.split(/\s+/);
    await runOk("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd: project });
  }
  const check = `
    const { GenVideo } = await import("@genvideo/sdk");
    const { createGenVideoMock } = await import("@genvideo/msw");
    const mock = createGenVideoMock();
    const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey,
      fetch: (input, init) => mock.fetch(new Request(input, init)) });
    const task = await client.createTask({ prompt: "installed from the README" });
    console.log(JSON.stringify({ created: task.success }));
  `;
  const { stdout } = await runOk("node", ["--input-type=module", "-e", check], { cwd: project });
  expect(JSON.parse(stdout.trim())).toEqual({ created: true });
});
