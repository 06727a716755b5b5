/// <reference types="node" />
/**
 * The handlers under msw's setupWorker in headless Chromium (Debian's
 * package, driven by playwright-core): the page creates a task with the SDK,
 * the mock completes it, the page's own handler gets the signed webhook.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { listenOnLoopback } from "@genvideo/server/testing";
import { launchChromium } from "@genvideo/server/testing/browser";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";

const require = createRequire(import.meta.url);
let server: Server;
let browser: Browser;
let origin: string;

/** The page's script, bundled for the browser from the sources (the SDK and this package). */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./browser/page.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2023",
    conditions: ["@genvideo/source", "browser"],
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

beforeAll(async () => {
  const page = await bundlePage();
  const worker = readFileSync(require.resolve("msw/mockServiceWorker.js"), "utf8");
  const files: Record<string, [string, string]> = {
    "/": [
      "text/html",
      '<!doctype html><meta charset="utf-8"><title>genvideo msw</title><script type="module" src="/page.js"></script>',
    ],
    "/page.js": ["text/javascript", page],
    "/mockServiceWorker.js": ["text/javascript", worker],
  };
  server = createServer((request, response) => {
    const file = files[request.url ?? ""];
    if (!file) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": file[0], "cache-control": "no-store" }).end(file[1]);
  });
  origin = `http://127.0.0.1:${await listenOnLoopback(server)}`;
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

it("creates and completes a task from page code under setupWorker", async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(origin);
  await page.waitForFunction(() => "runGenVideoFlow" in globalThis);
  const result = await page.evaluate(() =>
    (globalThis as unknown as { runGenVideoFlow(): Promise<Record<string, unknown>> }).runGenVideoFlow(),
  );
  expect(errors).toEqual([]);
  expect(result).toMatchObject({
    before: "processing",
    after: "completed",
    hooks: ["true Video generated successfully"],
    video: { status: 200, type: "video/mp4", brand: "ftyp" },
    unauthorized: { status: 401, body: { error: "Unauthorized", message: "Authorization header required" } },
  });
  expect(result.requests).toEqual([
    "POST /api/gen/generate 200",
    expect.stringMatching(/^GET \/api\/gen\/status\/[0-9a-f-]{36} 200$/),
    expect.stringMatching(/^GET \/api\/gen\/status\/[0-9a-f-]{36} 200$/),
    expect.stringMatching(/^GET \/videos\/[0-9a-f-]{36}\.mp4 200$/),
    "GET /api/gen/account 401",
  ]);
}, 20_000);
