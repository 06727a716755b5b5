/**
 * openapi-typescript + openapi-fetch and @hey-api/openapi-ts (types and zod) generated from the
 * document the server serves: a customer script compiles (TypeScript 5) and runs against the server;
 * the wrong request forms fail to compile and to parse; the generated zod schemas parse the
 * server's real answers and webhook payloads.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningServer, TEST_API_KEY } from "@genvideo/server/testing";
import { createClient } from "@hey-api/openapi-ts";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DriveResult, driveEverything, PNG, startDrivenServer } from "./support/exchanges.js";
import { startDocumentedServer } from "./support/served-document.js";
import { scratchDirectory } from "./support/tools.js";

let server: RunningServer;
let result: DriveResult;
let customerOutcome: string;
const scratch = scratchDirectory("generated");
const cleanups: (() => unknown)[] = [scratch.remove];

beforeAll(async () => {
  const started = await startDocumentedServer(startDrivenServer, cleanups);
  server = started.server;
  const { served } = started;
  scratch.write("openapi-typescript.ts", astToString(await openapiTS(new URL(`file://${served.path}`))));
  await createClient({
    input: served.path,
    output: join(scratch.path, "hey"),
    plugins: ["@hey-api/typescript", "zod"],
    logs: { level: "silent" },
  });
  copyFileSync(new URL("./fixtures/customer.ts", import.meta.url), join(scratch.path, "customer.ts"));
  // The customer runs first: the drive ends by breaking the store (its 500 answers).
  const { customer } = (await import(join(scratch.path, "customer.ts"))) as {
    customer(baseUrl: string, apiKey: string): Promise<string>;
  };
  customerOutcome = await customer(server.url, TEST_API_KEY);
  result = await driveEverything(server, server.url);
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it("compiles the customer script with TypeScript 5, the wrong forms refused (@ts-expect-error)", () => {
  const program = ts.createProgram([join(scratch.path, "customer.ts")], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
  expect(diagnostics).toEqual([]);
});

it("runs the customer script against the server", () => {
  expect(customerOutcome).toMatch(/^(queued|processing|http:\/\/127\.0\.0\.1:\d+\/videos\/)/);
});

it("parses real answers and webhooks with the generated zod schemas, and refuses the wrong forms", async () => {
  const zod = (await import(join(scratch.path, "hey/zod.gen.ts"))) as Record<string, any>;
  const schemaFor = (path: string, method: string, status: number): string => {
    if (status === 401) return "zAuthErrorBody";
    if (path.startsWith("/videos/")) return status >= 500 ? "zErrorBody" : "zVideoErrorBody";
    if (path === "/api/gen/generate" && method === "POST")
      return status === 200 ? "zCreateTaskResponse" : "zCreateErrorBody";
    if (status >= 400) return "zErrorBody";
    if (path.startsWith("/api/gen/status/")) return "zTaskStatusResponse";
    if (path === "/api/gen/account") return "zAccountResponse";
    if (path.endsWith("/redeliver")) return "zWebhookRedeliveryResponse";
    return "zWebhookEventList";
  };
  let parsed = 0;
  for (const exchange of result.exchanges) {
    if (exchange.path.startsWith("/videos/") && exchange.status < 400) continue;
    const name = schemaFor(exchange.path, exchange.method, exchange.status);
    const outcome = zod[name].safeParse(JSON.parse(exchange.body));
    expect(outcome.success, `${exchange.name} (${exchange.status}) with ${name}: ${outcome.error}`).toBe(
      true,
    );
    parsed++;
  }
  expect(parsed).toBeGreaterThan(60);
  expect(result.webhooks.length).toBeGreaterThanOrEqual(4);
  for (const webhook of result.webhooks)
    expect(zod.zWebhookPayload.safeParse(JSON.parse(webhook.body)).success).toBe(true);

  expect(zod.zGenerationRequest.safeParse({ prompt: "x", start_frame: PNG }).success).toBe(false);
  expect(
    zod.zGenerationRequest.safeParse({
      prompt: "x",
      start_frame: PNG,
      end_frame: PNG,
      reference_images: [PNG],
    }).success,
  ).toBe(false);
  for (const body of [
    { prompt: "x" },
    { prompt: `  ${"x".repeat(2000)}  ` },
    { prompt: "x", start_frame: PNG, end_frame: PNG },
    { prompt: "x", reference_images: [PNG] },
  ])
    expect(zod.zGenerationRequest.safeParse(body).success).toBe(true);
});
