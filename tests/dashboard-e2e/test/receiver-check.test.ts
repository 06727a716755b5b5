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
  apiKey: string;
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
  const signedIn = {
    server,
    page,
    webhookSecret: /^(whsec_\S+)$/m.exec(output)![1]!,
    apiKey: /^(gen_sk_\S+)$/m.exec(output)![1]!,
  };
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
    // A reload (or a bookmark) is the check's page again, styled, with the navigation and the form.
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(200);
    expect(await page.getByRole("navigation", { name: "Dashboard" }).count()).toBe(1);
    expect(await page.locator('form[action="/dashboard/webhooks/check"]').count()).toBe(1);
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

  it("carries the task id typed in the form in every payload", async () => {
    const { page } = local;
    const taskId = (await (
      await fetch(new URL("/api/gen/generate", local.server.url), {
        method: "POST",
        headers: { authorization: `Bearer ${local.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "a checked task" }),
      })
    ).json()) as { task_id: string };
    await page.goto(new URL("/dashboard/webhooks", local.server.url).href);
    await page.getByLabel("Task id").fill(taskId.task_id);
    await checkEndpoint(page, receiver.url);
    expect(await page.locator("main").textContent()).toContain(
      `every payload with task id ${taskId.task_id}`,
    );
    expect(await page.getByText("which no task has").count()).toBe(0);
    // Another account's or an unknown task is refused before anything is sent.
    const before = receiver.received.length;
    await page.getByLabel("Task id").fill("00000000-0000-4000-8000-00000000abcd");
    await checkEndpoint(page, receiver.url);
    expect(await page.getByRole("alert").textContent()).toContain("this account has no task");
    expect(receiver.received.length).toBe(before);
  });

  it("during a rotation, passes a receiver on the older secret and says until when it works", async () => {
    const { page } = local;
    await page.goto(new URL("/dashboard/webhooks", local.server.url).href);
    await page.getByLabel("24 hours").check();
    await page.getByRole("button", { name: "Rotate the signing secret" }).click();
    const newSecret = await page.locator("#new-secret").inputValue();
    await checkEndpoint(page, receiver.url);
    expect(await page.getByRole("status").first().textContent()).toBe(
      "The receiver passes the check: 16 passed, 1 warned, 0 failed.",
    );
    expect(await page.getByRole("note").first().textContent()).toMatch(
      /^A secret rotation is under way, and this receiver is on the older secret: it verifies deliveries until \d{4}-\d\d-\d\d [\d:]+ UTC, and none after\./,
    );
    expect(await page.locator('tr[data-case="newest-secret-alone"] td').first().textContent()).toBe("warn");
    // The receiver given the new secret: all pass, and it is told it is on the current one.
    const old = local.webhookSecret;
    local.webhookSecret = newSecret;
    await checkEndpoint(page, receiver.url);
    expect(await page.getByRole("status").first().textContent()).toBe(
      "The receiver passes the check: 17 passed, 0 warned, 0 failed.",
    );
    expect(await page.getByRole("note").first().textContent()).toContain(
      "this receiver is on the current secret",
    );
    local.webhookSecret = old;
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
      page.waitForResponse(
        (r) => r.url().endsWith("/dashboard/webhooks/check") && r.request().method() === "POST",
      ),
      checkEndpoint(page, url),
    ]);
    // Post/redirect/get: the refusal is shown on a page that a reload shows again, styled.
    expect(response.status()).toBe(303);
    const alert = await page.getByRole("alert").textContent();
    expect(alert).toContain("Not checked:");
    expect(alert).toContain(reason);
    expect(await page.locator("tr[data-case]").count()).toBe(0);
    expect(receiver.received.length).toBe(before);
  });
});
