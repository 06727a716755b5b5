/**
 * A customer's backend project: the SDK and the reference server installed by npm from their
 * tarballs, a script type-checked under both module resolutions, and the create, poll and
 * verify flow run against `npx genvideo-server start` on every runtime the SDK promises.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FlowResult } from "./fixtures/customer/customer.ts";
import { run, runOk } from "./support/commands.js";
import { type CustomerServer, startCustomerServer } from "./support/customer-server.js";
import { createProject } from "./support/project.js";
import { compareRuntimeMatrix, recordRuntimeRow } from "./support/runtime-matrix.js";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.js";

/** The part of miniflare's API used here (it is installed with the runtimes, not in the workspace). */
interface MiniflareModule {
  Miniflare: new (options: {
    modules: boolean;
    script: string;
    compatibilityDate: string;
  }) => {
    dispatchFetch(url: string, init: { method: string; body: string }): Promise<Response>;
    dispose(): Promise<void>;
  };
}

const tarballs = inject("tarballs");
const runtimes = inject("runtimes");
const scratch = inject("scratch");
const project = join(scratch, "customer");

let server: CustomerServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  const { "@genvideo/msw": _msw, ...backendPackages } = tarballs;
  await createProject({
    directory: project,
    tarballs: backendPackages,
    registry: { typescript: "^7.0.2" },
    fixtures: join(import.meta.dirname, "fixtures/customer"),
  });
  receiver = await startWebhookReceiver();
  server = await startCustomerServer(project, {
    // Service time at 600x (a minute of generation in 100 ms) and one tiny fixed MP4 per task:
    // these runs are about the SDK, the synthetic renderer has a test of its own below.
    GENVIDEO_TIME_SCALE: "600",
    GENVIDEO_RENDERER: "fixture",
    // The receiver is this machine's loopback, which only local development may call.
    GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
  });
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

function flowSettings(runtime: string) {
  return {
    GENVIDEO_BASE_URL: server.url,
    GENVIDEO_API_KEY: server.apiKey,
    GENVIDEO_WEBHOOK_SECRET: server.webhookSecret,
    RECEIVER_URL: receiver.url,
    RUNTIME_NAME: runtime,
  };
}

function lastJsonLine(stdout: string): FlowResult {
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as FlowResult;
}

describe("type-checking a customer script", () => {
  it.each(["nodenext", "bundler"])(
    "passes with moduleResolution %s, strict, skipLibCheck false",
    async (mode) => {
      const result = await run(join(project, "node_modules/.bin/tsc"), ["-p", `tsconfig.${mode}.json`], {
        cwd: project,
      });
      expect(`${result.stdout}${result.stderr}`).toBe("");
      expect(result.code).toBe(0);
    },
  );
});

describe("the reference server from its tarball", () => {
  it("keeps its data in ./.genvideo of the directory it was started from", () => {
    expect(existsSync(join(project, ".genvideo"))).toBe(true);
  });

  it("renders with its npm ffmpeg and serves the completed task's MP4", async () => {
    // A second server with the default renderer, on data of its own (SQLite is one process's).
    // Service time at 10x: the minute of generation takes 6 s and the deadline a real minute,
    // room for a real render on a busy machine.
    const rendering = await startCustomerServer(project, {
      GENVIDEO_DATA_DIR: "./.genvideo-rendering",
      GENVIDEO_TIME_SCALE: "10",
      GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
    });
    try {
      const { stdout } = await runOk(runtimes.node24, ["run.mjs"], {
        cwd: project,
        env: {
          ...process.env,
          GENVIDEO_BASE_URL: rendering.url,
          GENVIDEO_API_KEY: rendering.apiKey,
          GENVIDEO_WEBHOOK_SECRET: rendering.webhookSecret,
          RECEIVER_URL: receiver.url,
          RUNTIME_NAME: "the synthetic renderer",
        },
      });
      const response = await fetch(lastJsonLine(stdout).videoUrl);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(response.headers.get("content-type")).toBe("video/mp4");
      expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe("ftyp");
    } finally {
      await rendering.stop();
    }
  });
});

describe("the SDK's create, poll and verify flow", () => {
  const processRuntimes: [string, () => [string, string[]]][] = [
    ["Node 22", () => [runtimes.node22, ["run.mjs"]]],
    ["Node 24", () => [runtimes.node24, ["run.mjs"]]],
    ["Bun", () => [runtimes.bun, ["run.mjs"]]],
    ["Deno", () => [runtimes.deno, ["run", "--allow-env", "--allow-net", "--allow-read", "run.mjs"]]],
  ];

  it.each(processRuntimes)("runs on %s", async (name, command) => {
    const [executable, args] = command();
    const { stdout } = await runOk(executable, args, {
      cwd: project,
      env: { ...process.env, ...flowSettings(name) },
    });
    const result = lastJsonLine(stdout);
    recordRuntimeRow(name, result);
    expect(result).toMatchObject({ create: true, poll: true, verify: true });
  });

  it("runs on workerd (Cloudflare Workers)", async () => {
    const bundle = join(project, "worker.bundle.js");
    await runOk(
      join(runtimes.workerTools, "node_modules/.bin/esbuild"),
      [
        "worker.ts",
        "--bundle",
        "--format=esm",
        "--platform=neutral",
        "--conditions=workerd,worker,browser",
        "--main-fields=module,main",
        `--outfile=${bundle}`,
      ],
      { cwd: project },
    );
    const { Miniflare } = (await import(
      join(runtimes.workerTools, "node_modules/miniflare/dist/src/index.js")
    )) as MiniflareModule;
    const worker = new Miniflare({
      modules: true,
      script: readFileSync(bundle, "utf8"),
      compatibilityDate: "2025-09-01",
    });
    try {
      const settings = flowSettings("workerd");
      const response = await worker.dispatchFetch("http://worker.test/", {
        method: "POST",
        body: JSON.stringify({
          baseUrl: settings.GENVIDEO_BASE_URL,
          apiKey: settings.GENVIDEO_API_KEY,
          webhookSecret: settings.GENVIDEO_WEBHOOK_SECRET,
          receiverUrl: settings.RECEIVER_URL,
          runtime: "workerd",
        }),
      });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      const result = JSON.parse(text) as FlowResult;
      recordRuntimeRow("workerd (Cloudflare Workers)", result);
      expect(result).toMatchObject({ create: true, poll: true, verify: true });
    } finally {
      await worker.dispose();
    }
  });
});

describe("the SDK README's runtime matrix", () => {
  it("shows what the runs above found, runtime by runtime", () => {
    const { expected, actual } = compareRuntimeMatrix();
    expect(actual, "set UPDATE_RUNTIME_MATRIX=1 and run `pnpm test:ecosystem` to rewrite it").toBe(expected);
  });
});
