/**
 * `genvideo-server webhooks rotate-secret`: the new secret printed once, and
 * during the overlap every webhook carries a signature of each live secret,
 * so receivers on the old or the new one verify it (Standard Webhooks).
 */
import { Webhook } from "standardwebhooks";
import { beforeAll, expect, it } from "vitest";
import { createTask } from "../support/api.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  runCliInProcess,
  startWebhookReceiver,
  TEST_WEBHOOK_SECRET,
  type WebhookReceiver,
} from "../support/server-process.js";
import { useServer } from "../support/use-server.js";

let receiver: WebhookReceiver;
const server = useServer({ env: { ...FAST_SERVICE_ENV }, afterStop: () => receiver?.close() });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

async function rotate(overlap: string): Promise<string> {
  const result = await runCliInProcess(["webhooks", "rotate-secret", "--overlap", overlap], server.dataDir);
  expect(result.code, result.stderr).toBe(0);
  const secrets = result.stdout.split("\n").filter((line) => /^whsec_\S+$/.test(line));
  expect(secrets).toHaveLength(1);
  return secrets[0]!;
}

async function nextWebhook(): Promise<{ body: string; headers: Record<string, string> }> {
  const seen = receiver.received.length;
  await createTask(server, { prompt: "rotation", callback_url: receiver.url });
  const received = await eventually(async () => receiver.received[seen], 10_000, "a webhook");
  return { body: received.body, headers: received.headers as Record<string, string> };
}

it("signs with the old and the new secret during the overlap, then with the new one only", async () => {
  const rotated = await rotate("1h");
  expect(rotated).not.toBe(TEST_WEBHOOK_SECRET);
  const during = await nextWebhook();
  expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
  for (const secret of [TEST_WEBHOOK_SECRET, rotated])
    expect(() => new Webhook(secret).verify(during.body, during.headers)).not.toThrow();

  const latest = await rotate("0");
  const after = await nextWebhook();
  expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
  expect(() => new Webhook(latest).verify(after.body, after.headers)).not.toThrow();
  for (const secret of [TEST_WEBHOOK_SECRET, rotated])
    expect(() => new Webhook(secret).verify(after.body, after.headers)).toThrow();
});

it("refuses a malformed overlap and an unknown account, changing nothing", async () => {
  const bad = await runCliInProcess(["webhooks", "rotate-secret", "--overlap", "soon"], server.dataDir);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--overlap must be a duration/);
  const unknown = await runCliInProcess(["webhooks", "rotate-secret", "--account", "nobody"], server.dataDir);
  expect(unknown.code).toBe(1);
  expect(unknown.stdout).not.toMatch(/whsec_/);
});
