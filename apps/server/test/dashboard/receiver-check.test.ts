/**
 * The dashboard's receiver check (dashboard/receiver-check.ts) with the server's real webhook sender:
 * a verifying receiver passes through it, and a name that resolved to a public address when the URL
 * was validated but to loopback at connection time (DNS rebinding) is refused by the sender before
 * a packet is sent, as task callbacks are; the check then sends nothing more.
 */
import type { Engine } from "@genvideo/engine";
import { verifyWebhook } from "@genvideo/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { createReceiverChecker } from "../../src/dashboard/receiver-check.js";
import { createLogger } from "../../src/logging/logger.js";
import { validateCallbackUrl } from "../../src/webhooks/callback-url.js";
import { createWebhookSender } from "../../src/webhooks/webhook-sender.js";
import { fakeDns } from "../support/dns.js";
import { receiverSet } from "../support/receivers.js";
import { TEST_WEBHOOK_SECRET } from "../support/server-process.js";

const receivers = receiverSet();
afterAll(() => receivers.closeAll());

const signing = [{ id: "current", secret: TEST_WEBHOOK_SECRET, createdAt: 0, expiresAt: null }];
const admin = { signingSecrets: async () => signing } as unknown as Engine["admin"];
const logger = createLogger("silent");

function checker(allowInsecure: boolean, resolve = fakeDns({}).resolve, secrets = admin) {
  const sender = createWebhookSender({ allowInsecure, attemptTimeoutMs: 5_000, resolve });
  const checks = createReceiverChecker({
    sender,
    validateCallbackUrl: (url) => validateCallbackUrl(url, { allowInsecure, resolve }),
    admin: secrets,
    logger,
  });
  return { checks, close: () => sender.close() };
}

describe("the dashboard's receiver check through the webhook sender", () => {
  it("passes a verifying receiver, every delivery sent by the sender with its check header", async () => {
    const receiver = await receivers.start((request, response) => {
      verifyWebhook(request.body, request.headers, TEST_WEBHOOK_SECRET).then(
        () => response.writeHead(204).end(),
        () => response.writeHead(400).end("refused"),
      );
    });
    const { checks, close } = checker(true);
    const outcome = await checks.check("account", `${receiver.origin}/hook`);
    await close();
    if (!("report" in outcome)) throw new Error(`refused: ${outcome.refused}`);
    expect(outcome.report.counts).toEqual({ pass: 16, warn: 0, fail: 0, skip: 0 });
    expect(receiver.requests.map((request) => request.headers["genvideo-webhook-check"])).toHaveLength(15);
    expect(
      receiver.requests.every((request) => request.headers["user-agent"] === "genvideo-webhooks/1"),
    ).toBe(true);
  });

  it("signs with every live secret during a rotation, and says when the older one stops", async () => {
    const newer = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;
    const overlapEndsAt = Date.UTC(2026, 10, 29, 6, 0);
    const rotating = {
      signingSecrets: async () => [
        { id: "newer", secret: newer, createdAt: 2, expiresAt: null },
        { id: "older", secret: TEST_WEBHOOK_SECRET, createdAt: 1, expiresAt: overlapEndsAt },
      ],
    } as unknown as Engine["admin"];
    const receiver = await receivers.start((request, response) => {
      verifyWebhook(request.body, request.headers, TEST_WEBHOOK_SECRET).then(
        () => response.writeHead(204).end(),
        () => response.writeHead(400).end("refused"),
      );
    });
    const { checks, close } = checker(true, undefined, rotating);
    const outcome = await checks.check("account", `${receiver.origin}/hook`, crypto.randomUUID());
    await close();
    if (!("report" in outcome)) throw new Error(`refused: ${outcome.refused}`);
    expect(outcome.overlapEndsAt).toBe(overlapEndsAt);
    expect(outcome.report).toMatchObject({ ok: true, secrets: 2, receiverSecret: "older" });
    expect(outcome.report.counts).toEqual({ pass: 16, warn: 1, fail: 0, skip: 0 });
  });

  it("refuses at connection a name that rebinds to loopback after validation, sending nothing", async () => {
    const receiver = await receivers.start((_request, response) => response.writeHead(204).end());
    // Public when the URL is validated, loopback (the receiver) from then on.
    const dns = fakeDns({ "rebind.test": [["93.184.216.34"], ["127.0.0.1"]] });
    const { checks, close } = checker(false, dns.resolve);
    const outcome = await checks.check("account", `https://rebind.test:${receiver.port}/hook`);
    await close();
    if (!("report" in outcome)) throw new Error(`refused: ${outcome.refused}`);
    expect(outcome.report.cases[0]).toMatchObject({
      grade: "fail",
      detail: "refused address 127.0.0.1 (loopback), expected a 2xx",
    });
    expect(outcome.report.counts).toEqual({ pass: 0, warn: 0, fail: 2, skip: 14 });
    expect(receiver.connections).toBe(0);
  });

  it("refuses a private address before sending anything", async () => {
    const { checks, close } = checker(false);
    expect(await checks.check("account", "https://10.0.0.8/hook")).toEqual({
      refused: "callback_url host 10.0.0.8 is not a public address (private)",
    });
    await close();
  });
});
