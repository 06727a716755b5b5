/**
 * What a newcomer meets in the dashboard in the first hour, in real Chromium
 * against the real server (service time at 600x, insecure callbacks OFF as a
 * fresh start has them): the clock note, prompts on the task list and a
 * balance that follows it live, failures explained with what happened to the
 * credits, the test event's hint for local receivers, keys described
 * truthfully, a way back from an unknown page, no 404 for an icon; and on
 * every page, at desktop and phone widths, the layout check (layout.ts) and
 * axe-core.
 */

import { GenVideo } from "@genvideo/sdk";
import { eventually, type RunningServer, removeDataDir, startServer } from "@genvideo/server/testing";
import { launchChromium } from "@genvideo/server/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { layoutProblems, VIEWPORTS } from "./layout.js";
import { audit, createKeyInPage, keyRowId } from "./support.js";

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
/** Responses of 400 and more the browser got for anything a page loaded (icons included). */
const failedLoads: string[] = [];
/** What the console said at error level (a CSP violation, a script error), page by page. */
const consoleErrors: string[] = [];
/** Pages visited, for the layout check at the end. */
const pages = new Map<string, string>();

beforeAll(async () => {
  server = await startServer({
    bootstrap: false,
    env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_TIME_SCALE: "600", GENVIDEO_RATE_LIMITS: "off" },
  });
  const output = server.output();
  apiKey = /^(gen_sk_\S+)$/m.exec(output)![1]!;
  const link = new URL(/^(http\S+\/dashboard\/sign-in\?token=\S+)$/m.exec(output)![1]!);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  page = await context.newPage();
  page.on("console", (message) => {
    // A load that failed is counted by failedLoads, with its URL.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  page.on("response", (response) => {
    // The unknown task and the unknown path are 404s on purpose.
    const meant = ["/dashboard/tasks/00000000", "/dashboard/webhooks/test"];
    if (response.status() >= 400 && !meant.some((path) => response.url().includes(path)))
      failedLoads.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(new URL(link.pathname + link.search, server.url).href);
  pages.set("sign-in", page.url());
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/tasks$/);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  expect(await server.stop()).toBe(0);
  removeDataDir(server.dataDir);
});

const sdk = () => new GenVideo({ apiKey, baseUrl: server.url, maxRetries: 0 });
const at = (path: string) => new URL(path, server.url).href;

async function balance(): Promise<number> {
  const response = await fetch(at("/api/gen/account"), { headers: { authorization: `Bearer ${apiKey}` } });
  return ((await response.json()) as { credits: number }).credits;
}

async function visit(name: string, path: string): Promise<void> {
  await page.goto(at(path));
  pages.set(name, page.url());
}

describe("the dashboard's first hour", () => {
  it("says that service time runs faster, and shows both clocks", async () => {
    const note = (await page.locator(".clock-note").textContent()) ?? "";
    expect(note).toContain("600×");
    expect(note).toContain("GENVIDEO_TIME_SCALE=600");
    expect(note).toMatch(/now \d{4}-\d{2}-\d{2} [\d:]+ UTC \(wall clock \d{4}-\d{2}-\d{2} [\d:]+ UTC\)/);
    expect(await page.getByRole("columnheader", { name: "Created (service time)" }).count()).toBe(1);
  });

  it("shows each task's prompt, and the header's balance follows the open list", async () => {
    await visit("tasks", "/dashboard/tasks");
    const before = await balance();
    expect(await page.locator("#credits").textContent()).toBe(String(before));
    const { task_id } = await sdk().createTask({ prompt: "a red fox running through snow" });
    await page.locator(`#task-${task_id}[data-state="completed"]`).waitFor({ timeout: 20_000 });
    expect(await page.locator(`#task-${task_id} td.prompt`).textContent()).toBe(
      "a red fox running through snow",
    );
    await eventually(
      async () => ((await page.locator("#credits").textContent()) === String(before - 1) ? true : undefined),
      10_000,
      "the header's balance to follow the charge",
    );
    expect(await balance()).toBe(before - 1);
  });

  it("explains each failure and what happened to its credits", async () => {
    const cases = [
      {
        prompt: "nope [[fail:UNSAFE_CONTENT]]",
        says: /refused as unsafe content\. The 1 credit it cost was kept/,
      },
      {
        prompt: "broken [[fail:GENERATION_FAILED]]",
        says: /failed on the service's side\. The 1 credit it cost was refunded: ledger entry refund \+1 at .+ UTC\./,
      },
      {
        prompt: "forever [[timeout]]",
        says: /timed out\. The 1 credit it cost was refunded: ledger entry refund \+1/,
      },
    ];
    for (const { prompt, says } of cases) {
      const { task_id } = await sdk().createTask({ prompt });
      await expect(sdk().pollUntilDone(task_id, { interval: 100 })).rejects.toThrow(/failed/);
      await visit(`task-${prompt.split(" ")[0]}`, `/dashboard/tasks/${task_id}`);
      expect(await page.locator("[data-failure-explained]").textContent()).toMatch(says);
    }
    await audit(page, "task-failed");
  });

  it("keeps the URL of a refused test event and says how to allow local receivers", async () => {
    await visit("webhooks", "/dashboard/webhooks");
    const url = "http://127.0.0.1:9/hook";
    await page.getByLabel("Receiver URL").fill(url);
    await page.getByRole("button", { name: "Send a signed test event" }).click();
    await page.locator("[role=status]", { hasText: "refused url: not https" }).waitFor();
    expect(
      await page.getByRole("note").filter({ hasText: "GENVIDEO_ALLOW_INSECURE_CALLBACKS=1" }).count(),
    ).toBe(1);
    expect(await page.getByLabel("Receiver URL").inputValue()).toBe(url);
    const main = (await page.locator("main").textContent()) ?? "";
    expect(main).toContain("1 secret signs webhooks now.");
    expect(main).toContain("1 attempt");
    expect(main).not.toMatch(/\(s\)/);
  });

  it("describes keys truthfully: a 30-day key is active, its successor lives 30 days, a revoked key says when", async () => {
    await visit("keys", "/dashboard/keys");
    expect(await page.locator("tbody tr").first().locator("td").first().textContent()).toBe("first start");

    await page.getByLabel("Expires").selectOption("30d");
    const { key } = await createKeyInPage(page, "monthly");
    await visit("keys", "/dashboard/keys");
    const row = page.locator(`#${await keyRowId(page, key)}`);
    expect(await row.locator(".badge").textContent()).toBe("active");
    expect(await row.locator("td[data-expires]").textContent()).toMatch(/UTC \(in 30 d\)$/);

    await row.locator('a[href$="/rotate"]').click();
    pages.set("key-rotate", page.url());
    expect(await page.locator("main").textContent()).toContain("which expires 30 d after it is made");
    await page.getByLabel("1 hour").check();
    await page.getByRole("button", { name: "Rotate key" }).click();
    const fresh = await page.locator("#new-key").inputValue();
    await visit("keys", "/dashboard/keys");
    expect(await page.locator(`#${await keyRowId(page, fresh)} td[data-expires]`).textContent()).toMatch(
      /\(in 30 d\)$/,
    );
    const replaced = page.locator(`#${await keyRowId(page, key)}`);
    expect(await replaced.locator(".badge").textContent()).toBe("expires soon");
    // Rotated already: it says by what, and offers no second rotation (its successor is the one to rotate).
    expect(await replaced.locator("[data-replaced]").textContent()).toBe(
      `replaced by ${fresh.slice(0, 11)}…`,
    );
    expect(await replaced.locator('a[href$="/rotate"]').count()).toBe(0);
    await page.goto(at(`/dashboard/keys/${(await keyRowId(page, key)).slice(4)}/rotate`));
    expect(await page.locator("main").textContent()).toContain("was already rotated");
    await visit("keys", "/dashboard/keys");

    await page.locator(`#${await keyRowId(page, fresh)} a[href$="/revoke"]`).click();
    pages.set("key-revoke", page.url());
    await page.getByRole("button", { name: "Revoke key" }).click();
    // The form's answer, not only its click: the revocation is committed once the page says so.
    await page.locator("[role=status]", { hasText: "Revoked" }).waitFor();
    expect(await page.locator(`#${await keyRowId(page, fresh)} td[data-expires]`).textContent()).toMatch(
      /^revoked \d{4}-.+ UTC$/,
    );
  });

  it("gives an unknown dashboard path the styled page with the navigation", async () => {
    const response = await page.goto(at("/dashboard/webhooks/test"));
    expect(response?.status()).toBe(404);
    pages.set("unknown-path", page.url());
    expect(await page.getByRole("navigation", { name: "Dashboard" }).count()).toBe(1);
  });

  it("offers the way back from an unknown task", async () => {
    const response = await page.goto(at("/dashboard/tasks/00000000-0000-4000-8000-00000000abcd"));
    expect(response?.status()).toBe(404);
    pages.set("not-found", page.url());
    await page.getByRole("link", { name: "← All tasks" }).click();
    await page.waitForURL(/\/dashboard\/tasks$/);
  });

  it("shows the credits page", async () => {
    await visit("credits", "/dashboard/credits");
    expect(await page.locator("main").textContent()).toContain("refund");
  });

  it("lays out every page at desktop and phone widths: controls by their labels, no overlap, no overflow; axe clean", async () => {
    for (const [viewportName, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      for (const [name, url] of pages) {
        // The rotate and revoke pages of a key that is gone are 404s; open them for a live key instead.
        await page.goto(url.includes("/keys/") ? at("/dashboard/keys") : url);
        if (url.includes("/keys/")) {
          const action = url.endsWith("/rotate") ? "rotate" : "revoke";
          await page.locator(`tbody a[href$="/${action}"]`).first().click();
          await page.waitForURL(new RegExp(`/${action}$`));
        }
        expect(await layoutProblems(page), `${name} at ${viewportName}`).toEqual([]);
        await audit(page, `${name}-${viewportName}`, { screenshot: false });
      }
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("loaded nothing that failed (no icon 404 on any page), and the console logged no error (no CSP violation)", () => {
    expect(failedLoads).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("the layout check catches a table cut off at a phone's edge (the old scrolling tables)", async () => {
    const strict = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
    try {
      await strict.addCookies(await context.cookies());
      const other = await strict.newPage();
      await other.goto(at("/dashboard/keys"));
      expect(await layoutProblems(other)).toEqual([]);
      await other.addStyleTag({
        content:
          ".table-wrap table { display: table !important; } .table-wrap thead { display: table-header-group !important; position: static !important; width: auto !important; height: auto !important; clip-path: none !important; } .table-wrap tbody { display: table-row-group !important; } .table-wrap tr { display: table-row !important; } .table-wrap td { display: table-cell !important; padding: 6px 8px !important; white-space: nowrap; }",
      });
      expect(await layoutProblems(other)).toContainEqual(
        expect.stringMatching(/^a table is cut off .*"Actions"/),
      );
    } finally {
      await strict.close();
    }
  });

  it("the layout check catches radios floating away from their words (the old stacked labels)", async () => {
    const strict = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    try {
      await strict.addCookies(await context.cookies());
      const other = await strict.newPage();
      await other.goto(at("/dashboard/webhooks"));
      expect(await layoutProblems(other)).toEqual([]);
      await other.addStyleTag({
        content: ".stack label, fieldset.choices label { display: flex; flex-direction: column; }",
      });
      expect(await layoutProblems(other)).toContainEqual(
        expect.stringMatching(/overlap.*not on the line before its words/),
      );
    } finally {
      await strict.close();
    }
  });
});
