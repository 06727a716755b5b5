/**
 * The code samples of the API reference (`/docs`), taken from the document the server serves, run
 * as a reader would paste them: each curl sample with bash and each TypeScript sample with node,
 * against the reference server; the TypeScript ones (and the webhook guide's) type-checked too.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  type RunningServer,
  startServer,
  startWebhookReceiver,
  TEST_API_KEY,
  type WebhookReceiver,
} from "@genvideo/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// biome-ignore lint/suspicious/noExplicitAny: the test walks an untyped JSON document by path.
type Json = Record<string, any>;
interface Sample {
  lang: string;
  label: string;
  source: string;
}

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

let server: RunningServer;
let receiver: WebhookReceiver;
let document: Json;
let taskId: string;
let videoUrl: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startServer({ env: { GENVIDEO_TIME_SCALE: "60", GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1" } });
  document = (await (await server.fetch("/openapi.json")).json()) as Json;
  // A real task with a webhook, for the samples that read one.
  const created = await server.api("/api/gen/generate", {
    json: { prompt: "a sample", callback_url: receiver.url },
  });
  taskId = ((await created.json()) as { task_id: string }).task_id;
  await receiver.whenReceived(1);
  videoUrl = ((await (await server.api(`/api/gen/status/${taskId}`)).json()) as { video_url: string })
    .video_url;
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

function samples(): { operation: string; sample: Sample }[] {
  return Object.values(document.paths as Json).flatMap((item) =>
    Object.values(item as Json).flatMap((operation) =>
      (operation["x-codeSamples"] as Sample[]).map((sample) => ({
        operation: operation.operationId,
        sample,
      })),
    ),
  );
}

const EXPECTED_STATUS: Record<string, number> = { redeliverWebhook: 202 };

describe("the reference's code samples", () => {
  it("run with bash: every curl sample gets its success status from the server", async () => {
    const exampleTaskId = document.components.parameters.TaskId.example as string;
    const realVideo = new URL(videoUrl);
    const workDir = mkdtempSync(join(tmpdir(), "genvideo-samples-"));
    try {
      const curls = samples().filter(({ sample }) => sample.lang === "Shell");
      expect(curls.length).toBeGreaterThanOrEqual(9);
      for (const { operation, sample } of curls) {
        // The samples show example ids; a reader puts in their own task, video URL and key.
        const source = sample.source
          .replace(/\/videos\/[^']+/, `${realVideo.pathname}${realVideo.search}`)
          .replaceAll(exampleTaskId, taskId)
          .trimEnd();
        const { stdout } = await run("bash", ["-c", `${source} -sS -w '\\n%{http_code}'`], {
          cwd: workDir,
          env: { PATH: process.env.PATH ?? "", GENVIDEO_API_KEY: TEST_API_KEY },
        });
        expect(Number(stdout.trim().split("\n").pop()), `${sample.label} (${operation}):\n${stdout}`).toBe(
          EXPECTED_STATUS[operation] ?? 200,
        );
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("run more than once: the create sample pasted again, its prompt edited, creates another task", async () => {
    const create = samples().find(
      ({ operation, sample }) => operation === "createTask" && sample.lang === "Shell",
    )!.sample.source;
    expect(create).not.toMatch(/Idempotency-Key/i);
    const ids: string[] = [];
    for (const source of [create, create, create.replace(/"prompt": "[^"]*"/, '"prompt": "edited"')]) {
      const { stdout } = await run("bash", ["-c", `${source.trimEnd()} -sS`], {
        env: { PATH: process.env.PATH ?? "", GENVIDEO_API_KEY: TEST_API_KEY },
      });
      ids.push((JSON.parse(stdout) as { task_id: string }).task_id);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it("type-check: every TypeScript sample, and the webhook guide's, compiles against the packages", async () => {
    const dir = join(repositoryRoot, "examples/test/.reference-samples");
    mkdirSync(dir, { recursive: true });
    try {
      const typescript = samples().filter(({ sample }) => sample.lang === "TypeScript");
      const guide = document.webhooks.taskFinished.post.description as string;
      const guideBlocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
      expect(guideBlocks).toHaveLength(2);
      const files = [
        ...typescript.map(({ sample }) => sample.source),
        // The guide's receiver calls the reader's own code.
        ...guideBlocks.map((block) => `${block}\ndeclare function handleResult(payload: unknown): void;\n`),
      ];
      // Each sample is a module of its own (top-level await, its own names).
      for (const [index, source] of files.entries())
        writeFileSync(join(dir, `sample-${index}.ts`), `${source}\nexport {};\n`);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../../tsconfig.json",
          include: ["*.ts"],
          compilerOptions: { noEmit: true },
        }),
      );
      const result = await run(join(repositoryRoot, "node_modules/.bin/tsc"), ["-p", dir]).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
      );
      expect(result.stdout).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("run with node: every TypeScript sample succeeds against the server", async () => {
    const exampleTaskId = document.components.parameters.TaskId.example as string;
    const realVideo = new URL(videoUrl);
    // Beside the examples, so `@genvideo/sdk` resolves as in a customer's project; run elsewhere.
    const dir = join(repositoryRoot, "examples/test/.reference-samples/run");
    const workDir = mkdtempSync(join(tmpdir(), "genvideo-samples-"));
    mkdirSync(dir, { recursive: true });
    try {
      const typescript = samples().filter(({ sample }) => sample.lang === "TypeScript");
      // Side by side: the samples are independent (each create sends its own idempotency key).
      await Promise.all(
        typescript.map(async ({ operation, sample }, index) => {
          const file = join(dir, `sample-${index}.ts`);
          writeFileSync(
            file,
            sample.source
              .replace(/\/videos\/[^"]+/, `${realVideo.pathname}${realVideo.search}`)
              .replaceAll(exampleTaskId, taskId),
          );
          const { stdout } = await run(process.execPath, [file], {
            cwd: workDir,
            env: { PATH: process.env.PATH ?? "", GENVIDEO_API_KEY: TEST_API_KEY },
          });
          // The fetch samples print the status first; the SDK's throw on any failure.
          if (sample.label.startsWith("fetch"))
            expect(stdout.split(" ")[0], `${sample.label} (${operation})`).toBe(
              String(EXPECTED_STATUS[operation] ?? 200),
            );
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});
