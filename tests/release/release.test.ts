/**
 * What customers do once a release is on the registry, against the release the global setup
 * rehearsed: the server with `npx`, the SDK in an ES module project and a CommonJS one, the mock
 * with the msw README's test, each installed by npm, pnpm and bun from fresh directories that
 * know only the rehearsal registry.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { run, runOk } from "../ecosystem/support/commands.js";
import { type CustomerServer, startCustomerServer } from "../ecosystem/support/customer-server.js";
import { publishablePackages } from "../ecosystem/support/packages.js";
import { readmeExample } from "../ecosystem/support/readme-example.js";
import { startWebhookReceiver, type WebhookReceiver } from "../ecosystem/support/webhook-receiver.js";
import { addPackages, freshProject, PACKAGE_MANAGERS, type PackageManager } from "./support/consumer.js";
import { shellEnvironment } from "./support/environment.js";

const registryUrl = inject("registryUrl");
const versions = inject("versions");
const bun = inject("bun");
const scratch = inject("scratch");
const customerFixtures = join(import.meta.dirname, "../ecosystem/fixtures/customer");

interface Projects {
  esm: string;
  commonjs: string;
}

let server: CustomerServer;
let receiver: WebhookReceiver;
/** Each package manager's projects, installed side by side while the server starts. */
const installs = new Map<PackageManager, Promise<Projects>>();

async function installProjects(manager: PackageManager): Promise<Projects> {
  const esm = freshProject(join(scratch, `${manager}-esm`), registryUrl, "module");
  const commonjs = freshProject(join(scratch, `${manager}-commonjs`), registryUrl, "commonjs");
  await Promise.all([
    (async () => {
      await addPackages(manager, { bun }, esm, ["@genvideo/sdk"]);
      // The mock and its runner, as the msw README says, beside the SDK the backend already has.
      await addPackages(manager, { bun }, esm, ["@genvideo/msw", "msw", "vitest"], { dev: true });
    })(),
    addPackages(manager, { bun }, commonjs, ["@genvideo/sdk"]),
  ]);
  for (const file of ["customer.ts", "run.mjs"]) copyFileSync(join(customerFixtures, file), join(esm, file));
  copyFileSync(join(import.meta.dirname, "fixtures/commonjs/flow.cjs"), join(commonjs, "flow.cjs"));
  return { esm, commonjs };
}

beforeAll(async () => {
  for (const manager of PACKAGE_MANAGERS) {
    const projects = installProjects(manager);
    // Awaited by that manager's tests; a failed install fails them, not the whole file.
    projects.catch(() => {});
    installs.set(manager, projects);
  }
  receiver = await startWebhookReceiver();
  const directory = freshProject(join(scratch, "npx-server"), registryUrl, "module");
  server = await startCustomerServer(
    directory,
    {
      // As the README's quick start: a minute of generation takes a second.
      GENVIDEO_TIME_SCALE: "60",
      // The webhook receiver is this machine's loopback, which only local development may call.
      GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
    },
    // --yes answers the question npx asks a person at a terminal before it installs a package.
    ["--yes", `@genvideo/server@${versions["@genvideo/server"]}`, "start"],
    shellEnvironment(),
  );
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await Promise.allSettled(installs.values());
});

function flowEnvironment(runtime: string): NodeJS.ProcessEnv {
  return shellEnvironment({
    GENVIDEO_BASE_URL: server.url,
    GENVIDEO_API_KEY: server.apiKey,
    GENVIDEO_WEBHOOK_SECRET: server.webhookSecret,
    RECEIVER_URL: receiver.url,
    RUNTIME_NAME: runtime,
  });
}

function lastJsonLine(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as Record<string, unknown>;
}

describe("the rehearsal registry", () => {
  it("has every public package at the version `changeset version` gave it, as latest", async () => {
    expect(Object.keys(versions).sort()).toEqual(publishablePackages().map(({ name }) => name));
    for (const [name, version] of Object.entries(versions)) {
      expect(version).toMatch(/^\d+\.\d+\.\d+-rehearsal-\d+$/);
      const response = await fetch(`${registryUrl}/${name.replace("/", "%2f")}`);
      expect(response.status, name).toBe(200);
      const packument = (await response.json()) as {
        "dist-tags": Record<string, string>;
        versions: Record<string, { dependencies?: Record<string, string> }>;
      };
      expect(packument["dist-tags"].latest, name).toBe(version);
      // Workspace ranges became the versions released beside them.
      for (const [dependency, range] of Object.entries(packument.versions[version]?.dependencies ?? {})) {
        if (dependency in versions)
          expect(range, `${name} -> ${dependency}`).toBe(`^${versions[dependency]}`);
      }
    }
  });
});

describe("npx @genvideo/server@<version> start", () => {
  it("serves a task to completion with an MP4, as the README's quick start does with curl", async () => {
    const headers = { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" };
    const created = await fetch(`${server.url}/api/gen/generate`, {
      method: "POST",
      headers,
      body: JSON.stringify({ prompt: "a red fox running through snow" }),
    });
    expect(created.status).toBe(200);
    const { task_id: taskId } = (await created.json()) as { task_id: string };
    let status: { status: string; video_url?: string | null };
    do {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const response = await fetch(`${server.url}/api/gen/status/${taskId}`, { headers });
      status = (await response.json()) as typeof status;
    } while (status.status === "queued" || status.status === "processing");
    expect(status.status).toBe("completed");
    const video = await fetch(status.video_url as string);
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    const bytes = new Uint8Array(await video.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe("ftyp");
  });
});

describe.each(PACKAGE_MANAGERS)("installed with %s", (manager) => {
  // Bun's users run their code on Bun; the others on Node (this suite's Node 24).
  const runtime = () => (manager === "bun" ? bun : process.execPath);

  it("resolves @genvideo/sdk to the rehearsal's version", async () => {
    const { esm, commonjs } = (await installs.get(manager)) as Projects;
    for (const project of [esm, commonjs]) {
      const installed = JSON.parse(
        readFileSync(join(project, "node_modules/@genvideo/sdk/package.json"), "utf8"),
      ) as { version: string };
      expect(installed.version).toBe(versions["@genvideo/sdk"]);
    }
  });

  it("creates a task, polls it until done and verifies its webhook from an ES module project", async () => {
    const { esm } = (await installs.get(manager)) as Projects;
    const { stdout } = await runOk(runtime(), ["run.mjs"], { cwd: esm, env: flowEnvironment(manager) });
    expect(lastJsonLine(stdout)).toMatchObject({ create: true, poll: true, verify: true });
  });

  it("does the same from a CommonJS project, with require()", async () => {
    const { commonjs } = (await installs.get(manager)) as Projects;
    const { stdout } = await runOk(runtime(), ["flow.cjs"], { cwd: commonjs, env: flowEnvironment(manager) });
    expect(lastJsonLine(stdout)).toEqual({ create: true, poll: true, verify: true });
  });

  it("passes the msw README's complete test, unchanged, under vitest", async () => {
    const { esm } = (await installs.get(manager)) as Projects;
    // The README as published, the one customers read on the registry's page.
    const readme = readFileSync(join(esm, "node_modules/@genvideo/msw/README.md"), "utf8");
    mkdirSync(join(esm, "test"), { recursive: true });
    writeFileSync(join(esm, "test/readme-example.test.ts"), readmeExample(readme, "## A complete test"));
    // vitest on Node for every manager: msw's interception does not work on Bun's runtime.
    const result = await run(join(esm, "node_modules/.bin/vitest"), ["run"], {
      cwd: esm,
      env: shellEnvironment({ CI: "true" }),
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its summary.
    expect(result.stdout.replace(/\u001b\[[\d;]*m/g, "")).toMatch(/Tests\s+2 passed/);
  });
});
