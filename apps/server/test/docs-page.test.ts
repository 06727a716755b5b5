/**
 * `/docs` in Chromium, as a reader opens it: every operation and the webhook guide rendered, the
 * code samples there, search leading to an operation, and not one request to another host (each
 * request the page makes is recorded). Also measures the page's weight on a first load.
 * `GENVIDEO_DOCS_SCREENSHOTS=1` writes the screenshots the server README shows.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../src/testing/browser.js";
import { useServer } from "./support/use-server.js";

// biome-ignore lint/suspicious/noExplicitAny: the test walks an untyped JSON document by path.
type Json = Record<string, any>;

const screenshotsDir = fileURLToPath(new URL("../../../docs/reference/", import.meta.url));
const takeScreenshots = process.env.GENVIDEO_DOCS_SCREENSHOTS === "1";

const server = useServer();
let browser: Browser;
let document: Json;

beforeAll(async () => {
  browser = await launchChromium();
  document = (await (await server.fetch("/openapi.json")).json()) as Json;
});
afterAll(async () => {
  await browser?.close();
});

interface OpenedDocs {
  page: Page;
  requests: string[];
  cspViolations: string[];
  /** The console's errors: Chromium reports each refused style there. */
  consoleErrors: string[];
  pageErrors: string[];
  /** Bytes on the wire for the first load, compressed, headers included. */
  transferred: () => number;
}

async function openDocs(colorScheme: "light" | "dark"): Promise<OpenedDocs> {
  const page = await browser.newPage({ colorScheme, viewport: { width: 1400, height: 900 } });
  const requests: string[] = [];
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  // What the policy refused, as "directive blocked-uri" (an init script runs before the page's own).
  await page.exposeFunction("reportViolation", (violation: string) => cspViolations.push(violation));
  await page.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (event: SecurityPolicyViolationEvent) =>
      (window as unknown as { reportViolation(text: string): void }).reportViolation(
        `${event.violatedDirective} ${event.blockedURI}`,
      ),
    ),
  );
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  let transferred = 0;
  cdp.on("Network.loadingFinished", (event) => (transferred += event.encodedDataLength));
  await page.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
  await page.getByRole("heading", { name: document.info.title, level: 1 }).waitFor();
  return { page, requests, cspViolations, consoleErrors, pageErrors, transferred: () => transferred };
}

function operationsOf(): { id: string; summary: string }[] {
  return Object.values(document.paths as Json).flatMap((item) =>
    Object.values(item as Json).map((operation) => ({
      id: operation.operationId,
      summary: operation.summary,
    })),
  );
}

// Each test parses a 5 MB bundle in Chromium: seconds, more on a busy machine.
describe("/docs in Chromium", { timeout: 60_000 }, () => {
  it("renders every operation and the webhook guide, with the code samples, from this server alone", async () => {
    const { page, requests, cspViolations, consoleErrors, pageErrors, transferred } = await openDocs("light");
    try {
      const origin = new URL(server.url).origin;
      expect(requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"))).toEqual([]);
      expect(pageErrors).toEqual([]);
      // The tab's icon comes with the page, so the browser asks no /favicon.ico of a server that has none.
      expect(await page.locator('link[rel="icon"]').getAttribute("href")).toMatch(/^data:image\/svg\+xml,/);
      // Every style the renderer applies gets through (its code blocks keep their line numbers and
      // indentation); the one refusal is zod's probe for eval, which then runs without its JIT.
      expect(cspViolations.filter((violation) => violation !== "script-src eval")).toEqual([]);
      expect(consoleErrors.filter((text) => /Content Security Policy/.test(text))).toEqual([]);
      const firstLoad = transferred();
      console.log(`/docs first load: ${requests.length} requests, ${firstLoad} bytes transferred`);
      expect(firstLoad).toBeLessThan(2_000_000);
      // Again, as a reader comes back: the scripts come from the cache, only the page and document travel.
      await page.reload({ waitUntil: "networkidle" });
      console.log(`/docs next load: ${transferred() - firstLoad} bytes transferred`);
      expect(transferred() - firstLoad).toBeLessThan(50_000);

      // The reload renders the whole reference again: seconds on a busy machine, not poll's 1 s.
      for (const { summary } of operationsOf())
        await expect
          .poll(() => page.getByText(summary, { exact: true }).count(), { message: summary, timeout: 30_000 })
          .toBeGreaterThan(0);
      const webhook = document.webhooks.taskFinished.post;
      await expect.poll(() => page.getByText(webhook.summary, { exact: true }).count()).toBeGreaterThan(0);

      // The webhook guide: open it and read the headings of its sections.
      await page.getByText(webhook.summary, { exact: true }).first().click();
      for (const heading of ["The three headers", "Verify by hand", "Retry schedule", "What to answer"])
        await expect
          .poll(() => page.getByText(heading, { exact: true }).count(), { message: heading })
          .toBeGreaterThan(0);

      // The create operation's samples: curl with the key from the environment, then the SDK's.
      await page
        .getByRole("link", { name: /Create a video generation task/ })
        .first()
        .click();
      // biome-ignore lint/performance/useDomNodeTextContent: what the reader sees, not the hidden samples of other forms.
      const text = () => page.locator("body").innerText();
      await expect.poll(text).toContain('-H "Authorization: Bearer $GENVIDEO_API_KEY"');
      // Only the document's own samples: none of the renderer's generated clients (Ruby, PHP, ...).
      expect(await text()).not.toContain("Client Libraries");
      await page.getByText("curl: Text to video", { exact: true }).first().click();
      await page.getByText("@genvideo/sdk: Text to video", { exact: true }).first().click();
      await expect.poll(text).toContain("await client.createTask({");
      // The samples' code blocks got their styles: the line-number gutter's width is set on each.
      const gutters = await page
        .locator("code.hljs")
        .evaluateAll((codes) => codes.map((code) => getComputedStyle(code).getPropertyValue("--line-count")));
      expect(gutters.filter((count) => Number(count) > 0).length).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it("finds an operation by search and goes to it", async () => {
    const { page } = await openDocs("light");
    try {
      await page.keyboard.press("Control+k");
      await page.keyboard.type("status of a task");
      await page
        .getByRole("option", { name: /Get the status of a task/ })
        .first()
        .click();
      await expect
        .poll(() => decodeURIComponent(new URL(page.url()).hash))
        .toContain("/api/gen/status/{task_id}");
      const heading = page.getByRole("heading", { name: "Get the status of a task" }).first();
      await expect.poll(async () => (await heading.boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
      expect((await heading.boundingBox())?.y).toBeLessThan(900);
    } finally {
      await page.close();
    }
  });

  it("follows the reader's colour scheme, dark and light", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const { page } = await openDocs(scheme);
      try {
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        const [red = 0, green = 0, blue = 0] = (background.match(/\d+/g) ?? []).map(Number);
        const luminance = (red + green + blue) / 3;
        if (scheme === "dark") expect(luminance, background).toBeLessThan(80);
        else expect(luminance, background).toBeGreaterThan(200);
        if (takeScreenshots) {
          // The create operation: its parameters, the samples and an answer, as a reader first sees them.
          await page
            .getByRole("link", { name: /Create a video generation task/ })
            .first()
            .click();
          await page.getByText("curl: Text to video", { exact: true }).first().waitFor();
          mkdirSync(screenshotsDir, { recursive: true });
          await page.screenshot({ path: `${screenshotsDir}api-reference-${scheme}.png` });
        }
      } finally {
        await page.close();
      }
    }
  });

  it("serves the page under a strict Content-Security-Policy, the scripts compressed and cached for good", async () => {
    const response = await server.fetch("/docs");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe");
    const html = await response.text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map(
      (match) => match[1] as string,
    );
    expect(scripts).toHaveLength(3);
    for (const src of scripts) {
      const script = await server.fetch(src, { headers: { "accept-encoding": "br, gzip" } });
      expect(script.status).toBe(200);
      expect(script.headers.get("cache-control")).toContain("immutable");
      expect(script.headers.get("content-encoding")).toBe("br");
      // Read to the end: a body left unread is dropped mid-answer when collected.
      expect((await script.text()).length).toBeGreaterThan(0);
    }
    expect((await server.fetch("/docs/assets/scalar.0000000000000000.js")).status).toBe(404);
  });
});
