import { afterEach, describe, expect, it } from "vitest";
import { fakeDns } from "../../test/support/dns.js";
import { answering, startReceiver } from "../../test/support/receivers.js";
import { createWebhookTransport, type WebhookTransport } from "./webhook-transport.js";

let transport: WebhookTransport | undefined;
afterEach(async () => {
  await transport?.sender.close();
});

describe("createWebhookTransport", () => {
  it("checks at creation and at delivery with the same policy and resolver", async () => {
    const dns = fakeDns({ "hooks.test": ["127.0.0.1"] });
    transport = createWebhookTransport({ allowInsecure: false, resolve: dns.resolve });
    const receiver = await startReceiver(answering(200));
    try {
      const url = `https://hooks.test:${receiver.port}/`;
      expect(await transport.validateCallbackUrl(url)).toEqual({
        ok: false,
        reason: "callback_url host hooks.test resolves to a non-public address (127.0.0.1, loopback)",
      });
      const outcome = await transport.sender.send(
        { url, headers: { "content-type": "application/json" }, body: "{}" },
        new AbortController().signal,
      );
      expect(outcome).toMatchObject({ ok: false, error: "refused address 127.0.0.1 (loopback)" });
      expect(dns.questions).toEqual(["hooks.test", "hooks.test"]);
      expect(receiver.connections).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("lets local development deliver to loopback over http", async () => {
    transport = createWebhookTransport({ allowInsecure: true });
    const receiver = await startReceiver(answering(204));
    try {
      const url = `${receiver.origin}/hooks`;
      expect(await transport.validateCallbackUrl(url)).toEqual({ ok: true });
      const outcome = await transport.sender.send(
        { url, headers: { "content-type": "application/json" }, body: "{}" },
        new AbortController().signal,
      );
      expect(outcome).toMatchObject({ ok: true, statusCode: 204 });
    } finally {
      await receiver.close();
    }
  });
});
