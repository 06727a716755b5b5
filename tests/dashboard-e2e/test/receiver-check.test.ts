/**
 * "Check this endpoint" on the webhooks page, in Chromium against the real server: it grades a
 * receiver with signed deliveries (a verifying one passes, one that accepts everything fails), and
 * follows the callback URL rules of task callbacks: without GENVIDEO_ALLOW_INSECURE_CALLBACKS a
 * private or loopback address is refused before anything is sent.
 */
import type { IncomingHttpHeaders } from "node:http";
import { verifyWebhook } from "@genvideo/sdk";
import { type RunningServer, removeDataDir, serveOnLoopback, startServer } from "@genvideo/server/testing";
import { launchChromium } from "@genvideo/server/testing/browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audit } from "./support.js";

interface SignedInServer {
  server: RunningServer;
  page: Page;
  webhookSecret: string;
}

let browser: Browser;
const servers: SignedInServer[] = [];
let receiver: Awaited<ReturnType<typeof startCheckedReceiver>>;

/** A loopback receiver that verifies with `secret` (`acceptEverything`: a receiver that never verifies). */
async function startCheckedReceiver(secret: () => string) {
  const received: IncomingHttpHeaders[] = [];
  const state = { acceptEverything: false };
  const { origin, close } = await serveOnLoopback((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(request.headers);
      if (state.acceptEverything) return void response.writeHead(200).end();
      verifyWebhook(Buffer.concat(chunks), request.headers, secret()).then(
        () => response.writeHead(204).end(),
        () => response.writeHead(400).end("refused"),
      );
    });
  });
  return { url: `${origin}/hooks/genvideo`, received, state, close };
}

/** Starts a server, signs in with the link its first start printed. */
async function signedInServer(env: Record<string, string>): Promise<SignedInServer> {
  const server = await startServer({
    bootstrap: false,
    env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "off", ...env },
  });
  const output = server.output();
  const link = new URL(/^(http\S+\/dashboard\/sign-in\?token=\S+)$/m.exec(output)![1]!);
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 760 } })).newPage();
  const signedIn = { server, page, webhookSecret: /^(whsec_\S+)$/m.exec(output)![1]! };
  servers.push(signedIn);
  await page.goto(new URL(link.pathname + link.search, server.url).href);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/tasks$/);
  return signedIn;
}

async function checkEndpoint(page: Page, url: string): Promise<void> {
  const form = page.locator('form[action="/dashboard/webhooks/check"]');
  await form.getByLabel("Endpoint to check").fill(url);
  await form.getByRole("button", { name: "Check this endpoint" }).click();
  await page.waitForURL(/\/dashboard\/webhooks\/check$/);
}

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  for (const { server } of servers) {
    expect(await server.stop()).toBe(0);
    removeDataDir(server.dataDir);
  }
});

describe("Check this endpoint, with local receivers allowed (GENVIDEO_ALLOW_INSECURE_CALLBACKS=1)", () => {
  let local: SignedInServer;
  beforeAll(async () => {
    local = await signedInServer({ GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1" });
    receiver = await startCheckedReceiver(() => local.webhookSecret);
  }, 60_000);

  it("grades a verifying receiver: every case passes, each delivery marked as a check", async () => {
    const { page } = local;
    await page.goto(new URL("/dashboard/webhooks", local.server.url).href);
    await checkEndpoint(page, receiver.url);
    await expect
      .poll(() => page.getByRole("status").first().textContent())
      .toBe("The receiver passes the check: 16 passed, 0 warned, 0 failed.");
    expect(await page.locator("tr[data-case]").count()).toBe(16);
    expect(await page.locator('tr[data-case="timestamp-old"] td').first().textContent()).toBe("pass");
    expect(receiver.received).toHaveLength(15);
    expect(receiver.received.every((headers) => headers["genvideo-webhook-check"])).toBe(true);
    // The URL stays in the form, for checking again after a fix.
    expect(
      await page.locator('form[action="/dashboard/webhooks/check"] input[name="url"]').inputValue(),
    ).toBe(receiver.url);
    await audit(page, "receiver-check", { screenshot: false });
  });

  it("fails a receiver that accepts everything, naming the forgeries it let through", async () => {
    receiver.state.acceptEverything = true;
    const { page } = local;
    await checkEndpoint(page, receiver.url);
    expect(await page.getByRole("status").first().textContent()).toBe(
      "The receiver fails the check: 9 passed, 0 warned, 7 failed.",
    );
    const bodyChanged = page.locator('tr[data-case="body-changed"] td');
    expect(await bodyChanged.first().textContent()).toBe("fail");
    expect(await bodyChanged.nth(3).textContent()).toMatch(/^accepted it: answered 200 in \d+ ms$/);
    receiver.state.acceptEverything = false;
  });
});

describe("Check this endpoint, under the callback URL rules (no development flag)", () => {
  let strict: SignedInServer;
  beforeAll(async () => {
    strict = await signedInServer({});
  }, 60_000);

  it.each([
    [
      "a private address",
      "https://10.0.0.8/hook",
      "callback_url host 10.0.0.8 is not a public address (private)",
    ],
    ["a loopback address", "https://127.0.0.1:8443/hook", "is not a public address (loopback)"],
    ["plain http", "http://hooks.example.com/genvideo", "https"],
  ])("refuses %s before sending anything", async (_name, url, reason) => {
    const { page } = strict;
    const before = receiver.received.length;
    await page.goto(new URL("/dashboard/webhooks", strict.server.url).href);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/dashboard/webhooks/check")),
      checkEndpoint(page, url),
    ]);
    expect(response.status()).toBe(400);
    const alert = await page.getByRole("alert").textContent();
    expect(alert).toContain("Not checked:");
    expect(alert).toContain(reason);
    expect(await page.locator("tr[data-case]").count()).toBe(0);
    expect(receiver.received.length).toBe(before);
  });
});
