/**
 * `genvideo-server webhooks check <url>`: the receiver check from the command line, against loopback
 * receivers (allowed from the CLI), signed with the account's secret from the server's database.
 */
import { verifyWebhook } from "@genvideo/sdk";
import { describe, expect, it } from "vitest";
import { createTask } from "./support/api.js";
import { answering, type ReceiverHandler, receiverSet } from "./support/receivers.js";
import { FAST_SERVICE_ENV, runCliInProcess, TEST_WEBHOOK_SECRET } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const receivers = receiverSet();
const receiver = receivers.start;
const server = useServer({ env: FAST_SERVICE_ENV, afterStop: receivers.closeAll });

/** Verifies with `secret`: 204, or 400 with the reason. */
function verifying(secret: string): ReceiverHandler {
  return (request, response) => {
    verifyWebhook(request.body, request.headers, secret).then(
      () => response.writeHead(204).end(),
      (error: { reason?: string }) => response.writeHead(400).end(error.reason),
    );
  };
}

const check = (...args: string[]) => runCliInProcess(["webhooks", "check", ...args], server.dataDir);

describe("webhooks check", () => {
  it("passes a verifying receiver, signing with the account's current secret, each delivery marked", async () => {
    const target = await receiver(verifying(TEST_WEBHOOK_SECRET));
    const result = await check(`${target.origin}/hook`);
    expect(result.code, result.stdout).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe('Signed with the current webhook secret of account "default".');
    expect(lines[1]).toBe(
      `Webhook receiver check of ${target.origin}/hook (task id 00000000-0000-4000-8000-000000000000)`,
    );
    expect(lines.filter((line) => /^(pass|warn|fail|skip) /.test(line))).toHaveLength(16);
    expect(result.stdout).toContain("16 passed, 0 warned, 0 failed");
    expect(result.stdout).toContain("which no task has");
    expect(result.stdout).not.toContain(TEST_WEBHOOK_SECRET);
    expect(target.requests).toHaveLength(15);
    expect(target.requests.every((request) => request.headers["genvideo-webhook-check"])).toBe(true);
  });

  it("fails a receiver that accepts everything, exits 1, and says why with a link", async () => {
    const target = await receiver(answering(200));
    const result = await check(`${target.origin}/hook`);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^fail {2}The body changed after signing: accepted it: answered 200 in \d+ ms$/m,
    );
    expect(result.stdout).toContain(
      "      see: https://github.com/genvideo/genvideo/blob/main/docs/webhooks.md#verify-with-the-sdk",
    );
    expect(result.stdout).toContain("9 passed, 0 warned, 7 failed");
  });

  it("--json with --secret and a real task: the payloads carry the task's id", async () => {
    const otherSecret = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
    const target = await receiver(verifying(otherSecret));
    const taskId = await createTask(server, { prompt: "a checked receiver" });
    const result = await check(`${target.origin}/hook`, "--secret", otherSecret, "--task", taskId, "--json");
    expect(result.code, result.stdout).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ ok: true, taskId, notes: [], counts: { pass: 16, fail: 0 } });
    expect(report.cases[0]).toMatchObject({ id: "completed", expected: "2xx", grade: "pass" });
    expect(target.requests.every((request) => JSON.parse(request.body).task_id === taskId)).toBe(true);
  });

  it("refuses what it cannot check with one line", async () => {
    const unknownTask = await check("http://127.0.0.1:9/hook", "--task", crypto.randomUUID());
    expect(unknownTask.code).toBe(1);
    expect(unknownTask.stderr).toMatch(/^genvideo-server: account "default" has no task [0-9a-f-]{36}\n$/);
    expect((await check("ftp://127.0.0.1/hook")).stderr).toContain("must be http: or https:, got ftp:");
    expect((await check("http://127.0.0.1:9/hook", "--secret", "hunter2")).code).toBe(2);
    expect((await check()).stderr).toContain("usage: webhooks check <url>");
  });
});

// Last in the file: it rotates the account's secret, which the tests above sign with.
describe("webhooks check during a secret rotation", () => {
  it("signs with every live secret: a receiver on the older one passes, and is told until when it works", async () => {
    const rotation = await runCliInProcess(["webhooks", "rotate-secret", "--overlap", "24h"], server.dataDir);
    expect(rotation.code, rotation.stderr).toBe(0);
    const newSecret = rotation.stdout.split("\n").find((line) => /^whsec_\S+$/.test(line))!;
    const oldReceiver = await receiver(verifying(TEST_WEBHOOK_SECRET));
    const newReceiver = await receiver(verifying(newSecret));

    const onOld = await check(`${oldReceiver.origin}/webhooks/genvideo`);
    expect(onOld.code, onOld.stdout).toBe(0);
    expect(onOld.stdout).toContain(
      'Signed as the service signs now: with all 2 live webhook secrets of account "default", newest first.',
    );
    expect(onOld.stdout).toMatch(
      /^A secret rotation is under way: the older secret signs until \d{4}-\d\d-\d\dT[\d:.]+Z \(service time: in 24 h\)\.$/m,
    );
    expect(onOld.stdout).toContain("16 passed, 1 warned, 0 failed");
    expect(onOld.stdout).toMatch(
      /^warn {2}A valid delivery signed with the newest secret alone, as once the rotation's overlap ends: answered 400 in \d+ ms, expected a 2xx$/m,
    );
    expect(onOld.stdout).toMatch(
      /^The receiver is on the older secret: it verifies deliveries until .+, and none after\./m,
    );
    expect(onOld.stdout).not.toContain("(as this one may have)");
    // Each valid delivery carried both signatures, as the service's do.
    const valid = oldReceiver.requests.find(
      (request) => request.headers["genvideo-webhook-check"] === "completed",
    );
    expect(String(valid?.headers["webhook-signature"]).split(" ")).toHaveLength(2);

    const onNew = await check(`${newReceiver.origin}/webhooks/genvideo`);
    expect(onNew.code, onNew.stdout).toBe(0);
    expect(onNew.stdout).toContain("17 passed, 0 warned, 0 failed");
    expect(onNew.stdout).toContain(
      "The receiver is on the current secret: it keeps verifying when the rotation's overlap ends.",
    );
    for (const output of [onOld.stdout, onNew.stdout]) {
      expect(output).not.toContain(TEST_WEBHOOK_SECRET);
      expect(output).not.toContain(newSecret);
    }
  });
});
