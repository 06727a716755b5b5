/**
 * The dashboard in real Chromium (Debian's package through playwright-core)
 * against the real server, service time at 600x (GENVIDEO_TIME_SCALE): sign
 * in from the printed link, keys (shown once, used with the SDK, last used,
 * rotation overlap, revocation), the live task list, webhook attempts and
 * redelivery, signing-secret rotation verified with both secrets, and the
 * CSRF and Host refusals. Every page passes axe-core (no serious or critical
 * violation) in light and dark.
 */

import { AuthenticationError, GenVideo, verifyWebhook } from "@genvideo/sdk";
import { eventually, type RunningServer, removeDataDir, startServer } from "@genvideo/server/testing";
import { launchChromium } from "@genvideo/server/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  audit,
  createKeyInPage,
  fitsViewport,
  keyRowId,
  startAttackerPage,
  startReceiver,
} from "./support.js";

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** What the first start printed. */
let printed: { apiKey: string; webhookSecret: string; link: string };

const REBIND_HOST = "rebind.test";

beforeAll(async () => {
  server = await startServer({
    bootstrap: false,
    env: {
      GENVIDEO_RENDERER: "fixture",
      GENVIDEO_TIME_SCALE: "600",
      GENVIDEO_RATE_LIMITS: "off",
      GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
    },
  });
  const output = server.output();
  printed = {
    apiKey: /^(gen_sk_\S+)$/m.exec(output)![1]!,
    webhookSecret: /^(whsec_\S+)$/m.exec(output)![1]!,
    link: /^(http\S+\/dashboard\/sign-in\?token=\S+)$/m.exec(output)![1]!,
  };
  receiver = await startReceiver();
  browser = await launchChromium({ extraArgs: [`--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`] });
  context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  expect(await server.stop()).toBe(0);
  removeDataDir(server.dataDir);
});

const sdk = (apiKey: string) => new GenVideo({ apiKey, baseUrl: server.url, maxRetries: 0 });
const dashboard = (path: string) => new URL(path, server.url).href;

async function accountStatus(apiKey: string): Promise<number> {
  return (await fetch(dashboard("/api/gen/account"), { headers: { authorization: `Bearer ${apiKey}` } }))
    .status;
}

describe("the dashboard in Chromium", () => {
  it("signs in from the link the first start printed, leaving no token in the URL", async () => {
    const link = new URL(printed.link);
    await page.goto(dashboard(link.pathname + link.search));
    await audit(page, "sign-in");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard\/tasks$/);
    expect(page.url()).not.toMatch(/token/);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "genvideo_session")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });
  });

  it("creates a key, shows it once, and its last use by the SDK shows up", async () => {
    await page.goto(dashboard("/dashboard/keys"));
    await page.getByLabel("Name").fill("e2e backend");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.locator("#new-key").inputValue();
    expect(key).toMatch(/^gen_sk_[0-9A-Za-z]{38}$/);
    await audit(page, "keys-created");

    await page.goto(dashboard("/dashboard/keys"));
    expect(await page.content()).not.toContain(key);
    const row = await keyRowId(page, key);
    expect(await page.locator(`#${row} td[data-last-used]`).textContent()).toBe("never");

    const { task_id } = await sdk(key).createTask({ prompt: "made with a dashboard key" });
    expect((await sdk(key).getStatus(task_id)).task_id).toBe(task_id);
    const lastUsed = await eventually(
      async () => {
        await page.reload();
        const text = await page.locator(`#${row} td[data-last-used]`).textContent();
        return text !== "never" ? text : undefined;
      },
      20_000,
      '"last used" to change',
    );
    expect(lastUsed).toMatch(/UTC$/);
  });

  it("rotates a key with an overlap; the old key stops at its end, the new one keeps working", async () => {
    await page.goto(dashboard("/dashboard/keys"));
    const { key: old } = await createKeyInPage(page, "rotated");
    await page.goto(dashboard("/dashboard/keys"));
    await page.locator(`#${await keyRowId(page, old)} a[href$="/rotate"]`).click();
    await audit(page, "key-rotate");
    await page.getByLabel("1 hour").check();
    await page.getByRole("button", { name: "Rotate key" }).click();
    const fresh = await page.locator("#new-key").inputValue();
    expect(fresh).not.toBe(old);
    expect(await page.locator(`#${await keyRowId(page, old)}`).textContent()).toContain("expires soon");

    // One hour of service time is six real seconds at 600x.
    expect(await accountStatus(old)).toBe(200);
    await eventually(
      async () => ((await accountStatus(old)) === 401 ? true : undefined),
      30_000,
      "the old key to stop",
    );
    expect(await accountStatus(fresh)).toBe(200);
    await page.reload();
    expect(await page.locator(`#${await keyRowId(page, old)}`).textContent()).toContain("expired");
  });

  it("revokes a key behind a confirmation; its next request gets 401", async () => {
    await page.goto(dashboard("/dashboard/keys"));
    const { key } = await createKeyInPage(page, "to revoke");
    expect(await accountStatus(key)).toBe(200);
    await page.goto(dashboard("/dashboard/keys"));
    await page.locator(`#${await keyRowId(page, key)} a[href$="/revoke"]`).click();
    await audit(page, "key-revoke");
    expect(await accountStatus(key)).toBe(200); // nothing happens before the confirmation
    await page.getByRole("button", { name: "Revoke key" }).click();
    // The form's answer, not only its click: the revocation is committed once the page says so.
    await page.locator("[role=status]", { hasText: "Revoked" }).waitFor();
    await expect(sdk(key).getStatus(crypto.randomUUID())).rejects.toBeInstanceOf(AuthenticationError);
    expect(await accountStatus(key)).toBe(401);
  });

  it("shows tasks created through the API appear and finish on the open list, without a reload", async () => {
    await page.goto(dashboard("/dashboard/tasks"));
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    const client = sdk(printed.apiKey);
    const ids = [];
    for (const prompt of ["live one", "live two [[delay:90s]]", "live three [[fail:UNSAFE_CONTENT]]"])
      ids.push((await client.createTask({ prompt })).task_id);
    await page.locator(`#task-${ids[0]}[data-state="completed"]`).waitFor({ timeout: 20_000 });
    await page.locator(`#task-${ids[1]}[data-state="completed"]`).waitFor({ timeout: 20_000 });
    await page.locator(`#task-${ids[2]}[data-state="failed"]`).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await audit(page, "tasks");

    await page.setViewportSize({ width: 390, height: 800 });
    expect(await fitsViewport(page)).toBe(true);
    await audit(page, "tasks-phone");
    await page.setViewportSize({ width: 1100, height: 760 });

    await page.getByRole("link", { name: ids[0]! }).click();
    await page.waitForURL(new RegExp(`/dashboard/tasks/${ids[0]}$`));
    expect(await page.locator("video").count()).toBe(1);
    expect(await page.locator("#status-curl").textContent()).toContain(`/api/gen/status/${ids[0]}`);
    await audit(page, "task");
  });

  it("filters by state and failure code, and finds a task by the start of its id", async () => {
    await page.goto(dashboard("/dashboard/tasks?state=failed&code=UNSAFE_CONTENT"));
    const states = await page.$$eval("tbody tr", (rows) => rows.map((r) => r.getAttribute("data-state")));
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(["failed"]));
    const one = (await page.locator("tbody tr").first().getAttribute("id"))!.slice("task-".length);
    await page.goto(dashboard(`/dashboard/tasks?q=${one.slice(0, 8)}`));
    expect(await page.locator(`#task-${one}`).count()).toBe(1);
  });

  it("shows a failed task's webhook attempts and redelivers it", async () => {
    receiver.setStatus(500);
    const { task_id } = await sdk(printed.apiKey).createTask({
      prompt: "hook me [[fail:GENERATION_FAILED]]",
      callback_url: receiver.url,
    });
    await page.goto(dashboard(`/dashboard/tasks/${task_id}`));
    // Five attempts, 30 s of service time apart: a quarter of a second at 600x.
    await eventually(
      async () => {
        await page.reload();
        const text = (await page.locator("main").textContent()) ?? "";
        return text.includes("5 attempts") && text.includes("HTTP 500") ? true : undefined;
      },
      20_000,
      "five refused attempts",
    );
    // Each attempt shows what it sent: exactly the headers and the body the receiver got, in order.
    const got = receiver.received.filter((request) => request.body.includes(task_id));
    const shown = await page.locator("details[data-request] pre").allTextContents();
    expect(shown).toHaveLength(5);
    expect(got).toHaveLength(5);
    shown.forEach((text, index) => {
      const { headers, body } = got[index]!;
      expect(text).toBe(
        `${["content-type", "webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => `${name}: ${headers[name]}`).join("\n")}\n\n${body}`,
      );
    });
    await page.locator("details[data-request] summary").first().click();
    await audit(page, "task-webhooks");

    receiver.setStatus(200);
    await page.getByRole("button", { name: "Redeliver the webhook" }).click();
    await eventually(
      async () => {
        await page.reload();
        const text = (await page.locator("main").textContent()) ?? "";
        return text.includes("delivered") && text.includes("HTTP 200") ? true : undefined;
      },
      20_000,
      "the redelivery",
    );
    // The count says what the table holds: every attempt, and how many the new round made.
    expect(await page.locator("main").textContent()).toContain("6 attempts · redelivered: 1 attempt since");
    await page.goto(dashboard("/dashboard/webhooks"));
    expect(await page.locator("main").textContent()).toContain(task_id);

    // The delivery log redelivers one event too, and comes back to the log.
    const delivery = page.locator("section.card", { hasText: task_id });
    const attemptsBefore = await delivery.locator("tbody tr").count();
    await delivery.getByRole("button", { name: /Redeliver/ }).click();
    await page.waitForURL(/\/dashboard\/webhooks$/);
    await eventually(
      async () => {
        await page.reload();
        const rows = await page.locator("section.card", { hasText: task_id }).locator("tbody tr").count();
        return rows > attemptsBefore ? true : undefined;
      },
      20_000,
      "the redelivery from the log",
    );
  });

  it("sends a signed test event and keeps it in the delivery log, marked as a test, with its attempt", async () => {
    await page.goto(dashboard("/dashboard/webhooks"));
    const seen = receiver.received.length;
    await page.getByLabel("Receiver URL").fill(receiver.url);
    await page.getByRole("button", { name: "Send a signed test event" }).click();
    await page.locator("[role=status]", { hasText: "HTTP 200" }).waitFor();
    const sent = receiver.received[seen]!;
    const id = sent.headers["webhook-id"] as string;
    // A valid completed-task payload (the all-zero task id): the SDK's handler takes it as it is.
    await expect(
      verifyWebhook(sent.body, sent.headers as Record<string, string>, printed.webhookSecret),
    ).resolves.toMatchObject({ success: true, task_id: "00000000-0000-4000-8000-000000000000" });

    await page.goto(dashboard("/dashboard/webhooks"));
    const logged = page.locator("section[data-test-event]", { hasText: id });
    expect(await logged.textContent()).toMatch(/delivered[\s\S]*test event[\s\S]*HTTP 200/);
    expect(await logged.locator("details[data-request] pre").textContent()).toBe(
      `content-type: application/json\nwebhook-id: ${id}\nwebhook-timestamp: ${sent.headers["webhook-timestamp"]}\nwebhook-signature: ${sent.headers["webhook-signature"]}\n\n${sent.body}`,
    );
    await logged.getByRole("button", { name: /Send again/ }).click();
    await page.locator("[role=status]", { hasText: "HTTP 200" }).waitFor();
    expect(receiver.received.length).toBe(seen + 2);
    expect(await page.locator("section[data-test-event]").count()).toBe(2);
    await page.getByRole("heading", { name: "Delivery log" }).evaluate((heading) => heading.scrollIntoView());
    await audit(page, "webhooks-log");
  });

  it("rotates the signing secret; a webhook sent during the overlap verifies with both secrets", async () => {
    await page.goto(dashboard("/dashboard/webhooks"));
    await page.getByLabel("24 hours").check();
    await page.getByRole("button", { name: "Rotate the signing secret" }).click();
    const secret = await page.locator("#new-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await audit(page, "webhooks");
    await page.goto(dashboard("/dashboard/webhooks"));
    expect(await page.content()).not.toContain(secret);

    const seen = receiver.received.length;
    await sdk(printed.apiKey).createTask({ prompt: "signed twice", callback_url: receiver.url });
    const webhook = await eventually(async () => receiver.received[seen], 20_000, "a webhook");
    const headers = webhook.headers as Record<string, string>;
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const key of [printed.webhookSecret, secret])
      await expect(verifyWebhook(webhook.body, headers, key)).resolves.toMatchObject({ success: true });
  });

  it("shows the balance and the ledger", async () => {
    await page.goto(dashboard("/dashboard/credits"));
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toMatch(/grant/);
    expect(text).toMatch(/charge/);
    expect(text).toMatch(/refund/);
    await audit(page, "credits");
  });

  it("refuses a change without the CSRF token and a form posted from another origin", async () => {
    await page.goto(dashboard("/dashboard/keys"));
    const keysBefore = await page.locator("tbody tr").count();
    const status = await page.evaluate(async () => {
      const body = new URLSearchParams({ name: "no token", expires: "never" });
      return (await fetch("/dashboard/keys", { method: "POST", body })).status;
    });
    expect(status).toBe(403);

    const attacker = await startAttackerPage(server.url);
    try {
      const other = await context.newPage();
      await other.goto(attacker.url);
      await other.getByRole("button", { name: "Go" }).click();
      await other.waitForLoadState();
      expect(await other.locator("body").textContent()).toMatch(/Refused/);
      await other.close();
    } finally {
      await attacker.close();
    }
    await page.reload();
    expect(await page.locator("tbody tr").count()).toBe(keysBefore);
  });

  it("refuses the dashboard under a host name that is not the server's (DNS rebinding)", async () => {
    const port = new URL(server.url).port;
    const response = await page.goto(`http://${REBIND_HOST}:${port}/dashboard/tasks`);
    expect(response?.status()).toBe(403);
    expect(await page.locator("body").textContent()).toMatch(/DNS rebinding/);
  });

  it("signs out; the session no longer opens pages", async () => {
    await page.goto(dashboard("/dashboard/tasks"));
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(/\/dashboard\/sign-in$/);
    await page.goto(dashboard("/dashboard/keys"));
    expect(page.url()).toMatch(/\/dashboard\/sign-in$/);
  });
});
