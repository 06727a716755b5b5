/**
 * `genvideo-server conformance` as users run it, against the reference server started as users
 * start it: everything passes, read-only and with --create; exit codes 1 and 2 and the --create
 * confirmation. The checks' drifts are caught in packages/msw's conformance test.
 */
import { createServer } from "node:http";
import type { ConformanceReport } from "@genvideo/sdk/conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeLoopbackPort, listenOnLoopback } from "../testing/loopback.js";
import {
  type RunningServer,
  removeDataDir,
  runCli,
  startServer,
  TEST_API_KEY,
  TEST_WEBHOOK_SECRET,
} from "../testing/reference-server.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    env: { GENVIDEO_TIME_SCALE: "120", GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1" },
  });
});
afterAll(async () => {
  await server.stop();
  removeDataDir(server.dataDir);
});

const conformance = (...args: string[]) => runCli(["conformance", ...args], server.dataDir);

async function credits(): Promise<number> {
  return ((await (await server.api("/api/gen/account")).json()) as { credits: number }).credits;
}

describe("genvideo-server conformance against the reference server", () => {
  it("passes read-only, spends nothing, and never prints the key", async () => {
    const before = await credits();
    const result = await conformance(server.url, "--key", TEST_API_KEY);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^pass {2}auth-invalid-key /m);
    expect(result.stdout).toMatch(/^skip {2}task-status /m);
    expect(result.stdout).toMatch(/\d+ passed, 0 failed, 5 skipped in [\d.]+ s$/m);
    expect(result.stdout + result.stderr).not.toContain(TEST_API_KEY);
    expect(await credits()).toBe(before);
  });

  it("with --create: makes one task, follows it, verifies its webhook, checks its video; --json", async () => {
    const before = await credits();
    const result = await conformance(
      server.url,
      "--key",
      TEST_API_KEY,
      "--create",
      "--yes",
      "--secret",
      TEST_WEBHOOK_SECRET,
      "--json",
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toContain("it costs the key's account 1 credit");
    const report = JSON.parse(result.stdout) as ConformanceReport;
    expect(report).toMatchObject({ ok: true, mode: "create", counts: { fail: 0, skipped: 1 } });
    const outcomes = Object.fromEntries(report.checks.map((entry) => [entry.id, entry.outcome]));
    expect(outcomes).toMatchObject({
      "create-task": "pass",
      "create-status-until-end": "pass",
      "webhook-delivery": "pass",
      "video-range": "pass",
      "video-head": "pass",
      "video-signature-tampered": "pass",
      "video-signature-missing": "pass",
    });
    expect(await credits()).toBe(before - 1);

    // The task it made, named by --task: its completed status and video, read-only.
    const created = report.checks.find((entry) => entry.id === "create-task")!;
    const taskId = (JSON.parse(created.exchanges[0]!.answer.body) as { task_id: string }).task_id;
    const again = await conformance(server.url, "--key", TEST_API_KEY, "--task", taskId);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/^pass {2}task-status /m);
    expect(again.stdout).toMatch(/^pass {2}video-range /m);
    expect(again.stdout).toMatch(/19 passed, 0 failed, 0 skipped/);
  });

  it("--create without --yes and without a terminal: exit 2, nothing made", async () => {
    const before = await credits();
    const result = await conformance(server.url, "--key", TEST_API_KEY, "--create");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("add --yes to spend the credit");
    expect(result.stdout).toBe("");
    expect(await credits()).toBe(before);
  });

  it("usage errors exit 2 with one line naming the problem", async () => {
    const noKey = await conformance(server.url);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("--key <key> (or GENVIDEO_API_KEY)");
    const badUrl = await conformance("api.genvideo.example", "--key", TEST_API_KEY);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('"api.genvideo.example" is not a URL');
    const yesAlone = await conformance(server.url, "--key", TEST_API_KEY, "--yes");
    expect(yesAlone.code).toBe(2);
    expect(yesAlone.stderr).toContain("--yes goes with --create");
  });

  it("a deployment that does not answer: exit 2", async () => {
    const port = await freeLoopbackPort();
    const result = await conformance(`http://127.0.0.1:${port}`, "--key", TEST_API_KEY);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`http://127.0.0.1:${port} does not answer`);
  });

  it("a service that answers but not by the contract: exit 1, each failure with its rule", async () => {
    const impostor = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const port = await listenOnLoopback(impostor);
    try {
      const result = await conformance(`http://127.0.0.1:${port}`, "--key", TEST_API_KEY);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^fail {2}auth-missing-header /m);
      expect(result.stdout).toContain("- status 200, expected 401");
      expect(result.stdout).toContain(
        "rule: https://github.com/genvideo/genvideo/blob/main/docs/api.md#authentication",
      );
    } finally {
      impostor.close();
    }
  });
});
