/**
 * The example receiver passes the receiver check of docs/webhooks.md#check-your-receiver: in process
 * through its fetch handler (the vitest form a customer copies), and running as `server.ts` on Node,
 * checked over HTTP by `genvideo-server webhooks check`.
 */
import { checkWebhookReceiver, formatWebhookCheckReport } from "@genvideo/sdk/receiver-check";
import { removeDataDir, runCli, temporaryDataDir } from "@genvideo/server/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createReceiver } from "../webhook-receiver/receiver.ts";
import { type RunningExample, startExample } from "./programs.ts";

const secret = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;
let running: RunningExample | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await running?.stop();
  if (dataDir) removeDataDir(dataDir);
});

describe("examples/webhook-receiver passes the receiver check", () => {
  it("through its fetch handler, without a network", async () => {
    const receiver = createReceiver({ secret, onEvent: () => {} });
    const report = await checkWebhookReceiver(receiver.fetch, {
      secret,
      url: "http://localhost/webhooks/genvideo",
    });
    expect(report.ok, formatWebhookCheckReport(report)).toBe(true);
    expect(report.counts, formatWebhookCheckReport(report)).toEqual({ pass: 16, warn: 0, fail: 0, skip: 0 });
  });

  it("running on Node, checked by genvideo-server webhooks check", async () => {
    running = startExample("webhook-receiver/server.ts", { GENVIDEO_WEBHOOK_SECRET: secret, PORT: "0" });
    const [, url] = await running.line(/^listening on (\S+)$/m);
    dataDir = temporaryDataDir();
    const result = await runCli(["webhooks", "check", url!, "--secret", secret], dataDir);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("16 passed, 0 warned, 0 failed");
  });
});
