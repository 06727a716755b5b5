/** What the dashboard's browser tests share: accessibility audits, screenshots, a webhook receiver. */
import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { serveOnLoopback } from "@genvideo/server/testing";
import type { Page } from "playwright-core";
import { expect } from "vitest";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const screenshotsDir = fileURLToPath(new URL("../../../docs/dashboard/", import.meta.url));
/** `GENVIDEO_DASHBOARD_SCREENSHOTS=1` writes the PNGs docs/dashboard.md shows (light and dark). */
const takeScreenshots = process.env.GENVIDEO_DASHBOARD_SCREENSHOTS === "1";

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core on the page in light and dark, and fails on any serious or
 * critical violation. axe is evaluated through the DevTools protocol, which
 * the page's CSP (no inline script) does not govern. `screenshot: false`
 * keeps a page out of docs/dashboard.md's screenshots.
 */
export async function audit(page: Page, name: string, { screenshot = true } = {}): Promise<void> {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
      const result = await axe.run();
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target })),
      }));
    });
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious, `${name} (${colorScheme}): ${JSON.stringify(serious, null, 1)}`).toEqual([]);
    if (takeScreenshots && screenshot)
      await page.screenshot({ path: `${screenshotsDir}${name}-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** True when nothing on the page is wider than the viewport (readable on a phone). */
export async function fitsViewport(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback whose answer (status) a test changes as it goes. */
export async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  setStatus(status: number): void;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  let status = 200;
  const { origin, close } = await serveOnLoopback((request, response) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response
        .writeHead(status, { "content-type": "text/plain" })
        .end(status === 200 ? "ok" : "receiver says no");
    });
  });
  return {
    url: `${origin}/hook`,
    received,
    setStatus: (next) => {
      status = next;
    },
    close,
  };
}

/** A page on another origin (another port of 127.0.0.1: same site, other origin) with a form aimed at the dashboard. */
export async function startAttackerPage(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const html = `<!doctype html><meta charset="utf-8"><title>attacker</title>
<form method="post" action="${target}/dashboard/keys"><input name="name" value="stolen"><input name="expires" value="never"><button>Go</button></form>`;
  const { origin, close } = await serveOnLoopback((_request, response) =>
    response.writeHead(200, { "content-type": "text/html" }).end(html),
  );
  return { url: `${origin}/`, close };
}

/** The id of the key row (on the open keys page) whose prefix the key starts with. */
export async function keyRowId(page: Page, key: string): Promise<string> {
  const rows = await page.$$eval("tbody tr[id^='key-']", (trs) =>
    trs.map((tr) => ({
      id: tr.id,
      prefix: (tr.querySelector("td[data-prefix]")?.textContent ?? "").replace("…", ""),
    })),
  );
  const row = rows.find((r) => r.prefix.length > 6 && key.startsWith(r.prefix));
  if (!row) throw new Error(`no row for ${key.slice(0, 10)}`);
  return row.id;
}

/** Creates a key from the open keys page and returns it as shown once. */
export async function createKeyInPage(page: Page, name: string): Promise<{ key: string }> {
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  return { key: await page.locator("#new-key").inputValue() };
}
