/**
 * Webhook delivery through the real server (child process, SQLite, the
 * undici sender) to real loopback receivers. Service time runs 600x, so the
 * 30 s retry spacing is 50 ms; network timeouts do not scale (docs/webhooks.md#the-retry-schedule), so
 * the attempt deadline itself is tested with a shortened deadline in
 * webhooks-timeout.test.ts (and the full 30 s at the sender level,
 * src/webhooks/webhook-sender.test.ts); here, receivers that never answer
 * must not delay anybody else.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createTask, getStatus } from "./support/api.js";
import { answering, receiverSet, type TestReceiver } from "./support/receivers.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  runCliInProcess,
  TEST_WEBHOOK_SECRET,
} from "./support/server-process.js";
import { useServer } from "./support/use-server.js";
import { settledEvent, webhookEvents } from "./support/webhook-events.js";

const receivers = receiverSet();
const receiver = receivers.start;
// Attempts to receivers that never answer are still open at the end: a graceful stop aborts and hands them back.
const server = useServer({ env: FAST_SERVICE_ENV, afterStop: receivers.closeAll });

/** Waits until `receiver` has seen `count` requests. */
function requestsOf(target: TestReceiver, count: number, timeoutMs = 10_000) {
  return eventually(
    async () => (target.requests.length >= count ? target.requests : undefined),
    timeoutMs,
    `${count} request(s) at ${target.origin}`,
  );
}

/**
 * Service time passing, without a fixed sleep: a task that takes `delay` of
 * service time is created and its own webhook awaited.
 */
async function letServiceTimePass(delay: string): Promise<void> {
  const control = await receiver(answering(204));
  await createTask(server, {
    prompt: `control [[delay:${delay}]]`,
    callback_url: `${control.origin}/control`,
  });
  await requestsOf(control, 1);
}

const verifier = new Webhook(TEST_WEBHOOK_SECRET);
const headersOf = (request: TestReceiver["requests"][number]) => request.headers as Record<string, string>;

describe("what arrives", () => {
  it.each([
    ["completed", "arrive completed", undefined],
    ["failed", "arrive [[fail:UNSAFE_CONTENT]]", "UNSAFE_CONTENT"],
    ["failed", "arrive [[fail:GENERATION_FAILED]]", "GENERATION_FAILED"],
    ["timed out", "arrive [[timeout]]", "TIMEOUT"],
  ])("a %s task (%s) posts its signed payload once", async (_kind, prompt, code) => {
    const target = await receiver(answering(200));
    const taskId = await createTask(server, {
      prompt,
      callback_url: `${target.origin}/hooks/genvideo?tenant=7`,
    });
    const [request] = await requestsOf(target, 1);
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe("/hooks/genvideo?tenant=7");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["user-agent"]).toBe("genvideo-webhooks/1");
    expect(request!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(request!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);

    // The independent implementation of Standard Webhooks accepts it...
    const payload = verifier.verify(request!.body, headersOf(request!));
    const status = await getStatus(server, taskId);
    if (code === undefined) {
      expect(status.status).toBe("completed");
      expect(payload).toEqual({
        success: true,
        message: "Video generated successfully",
        task_id: taskId,
        video_url: expect.stringContaining(`/videos/${taskId}.mp4?expires=`),
      });
      const video = await fetch((payload as { video_url: string }).video_url);
      expect(video.status).toBe(200);
      expect(video.headers.get("content-type")).toBe("video/mp4");
      await video.arrayBuffer();
    } else {
      expect(status).toMatchObject({ status: "failed", message: code });
      expect(payload).toEqual({ success: false, message: code, task_id: taskId, video_url: null });
    }
    // ...with the fields in the documented order (docs/api.md#webhooks), and the bytes signed are the bytes sent.
    expect(Object.keys(JSON.parse(request!.body))).toEqual(["success", "message", "task_id", "video_url"]);
    const event = await settledEvent(server, taskId);
    expect(event).toMatchObject({ id: request!.headers["webhook-id"], state: "delivered", attempt_count: 1 });
  });

  it("fails verification when the body, the id or the timestamp is changed", async () => {
    const target = await receiver(answering(200));
    await createTask(server, { prompt: "tamper with me", callback_url: `${target.origin}/hook` });
    const [request] = await requestsOf(target, 1);
    const headers = headersOf(request!);
    expect(() => verifier.verify(request!.body, headers)).not.toThrow();

    const body = request!.body;
    const tamperedBodies = [
      body.replace('"success":true', '"success":false'),
      `${body} `,
      body.replace(/"task_id":"[^"]+"/, `"task_id":"${crypto.randomUUID()}"`),
    ];
    for (const tampered of tamperedBodies) expect(() => verifier.verify(tampered, headers)).toThrow();
    const id = headers["webhook-id"]!;
    // Change the id's last character to a different one (an id may already end in "0").
    const otherLast = id.endsWith("0") ? "1" : "0";
    expect(() =>
      verifier.verify(body, { ...headers, "webhook-id": `${id.slice(0, -1)}${otherLast}` }),
    ).toThrow();
    const timestamp = Number(headers["webhook-timestamp"]);
    for (const moved of [timestamp + 1, timestamp - 1])
      expect(() => verifier.verify(body, { ...headers, "webhook-timestamp": String(moved) })).toThrow();
    // Another account's secret does not verify it either.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 2).toString("base64")}`).verify(body, headers),
    ).toThrow();
  });
});

describe("retries", () => {
  it("a receiver answering 500 four times, then 200, sees exactly 5 attempts with one webhook-id", async () => {
    let answered = 0;
    const target = await receiver((_request, response) => {
      answered++;
      response.writeHead(answered <= 4 ? 500 : 200).end();
    });
    const taskId = await createTask(server, {
      prompt: "flaky receiver",
      callback_url: `${target.origin}/hook`,
    });
    const event = await settledEvent(server, taskId);
    expect(event).toMatchObject({ state: "delivered", attempt_count: 5, next_attempt_at: null });
    expect(event.attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.error])).toEqual([
      [1, 500, "HTTP 500"],
      [2, 500, "HTTP 500"],
      [3, 500, "HTTP 500"],
      [4, 500, "HTTP 500"],
      [5, 200, null],
    ]);
    await letServiceTimePass("2m");
    expect(target.requests).toHaveLength(5);
    expect(new Set(target.requests.map((request) => request.headers["webhook-id"]))).toEqual(
      new Set([event.id]),
    );
    // Same event, same bytes; each attempt signed afresh, and each verifies.
    expect(new Set(target.requests.map((request) => request.body)).size).toBe(1);
    for (const request of target.requests) verifier.verify(request.body, headersOf(request));
  });

  it("five failures mark the event failed, and a sixth attempt never comes", async () => {
    const target = await receiver(answering(503));
    const taskId = await createTask(server, { prompt: "always down", callback_url: `${target.origin}/hook` });
    const event = await settledEvent(server, taskId);
    expect(event).toMatchObject({ state: "failed", attempt_count: 5, next_attempt_at: null });
    expect(event.attempts.map((attempt) => attempt.error)).toEqual(Array(5).fill("HTTP 503"));
    // Six retry spacings of service time later, still five.
    await letServiceTimePass("3m");
    expect(target.requests).toHaveLength(5);
    expect((await webhookEvents(server, taskId))[0]).toMatchObject({ state: "failed", attempt_count: 5 });

    // The operator's view of the same delivery log.
    const listed = await runCliInProcess(["webhooks", "list", "--task", taskId], server.dataDir);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0]).toBe(`${event.id}  failed  5 attempts  ${target.origin}/hook`);
    expect(lines.slice(1)).toHaveLength(5);
    for (const [index, line] of lines.slice(1).entries())
      expect(line).toMatch(new RegExp(`^  #${index + 1}  \\S+  HTTP 503  \\d+ ms$`));
  });

  it("does not follow a redirect: each attempt fails with the 3xx, the target is never contacted", async () => {
    const elsewhere = await receiver(answering(200));
    const target = await receiver(answering(307, "", { location: `${elsewhere.origin}/hook` }));
    const taskId = await createTask(server, { prompt: "redirected", callback_url: `${target.origin}/hook` });
    const event = await settledEvent(server, taskId);
    expect(event).toMatchObject({ state: "failed", attempt_count: 5 });
    expect(event.attempts.map((attempt) => [attempt.status_code, attempt.error])).toEqual(
      Array(5).fill([307, "redirect not followed (307)"]),
    );
    expect(target.requests).toHaveLength(5);
    expect(elsewhere.connections).toBe(0);
  });

  it("after the receiver is fixed, the operator's CLI redelivers a failed event to the running server", async () => {
    let fixed = false;
    const target = await receiver((_request, response) => void response.writeHead(fixed ? 200 : 500).end());
    const taskId = await createTask(server, {
      prompt: "fix me later",
      callback_url: `${target.origin}/hook`,
    });
    const failed = await settledEvent(server, taskId);
    expect(failed).toMatchObject({ state: "failed", attempt_count: 5 });
    fixed = true;

    const queued = await runCliInProcess(["webhooks", "redeliver", taskId], server.dataDir);
    expect(queued.code).toBe(0);
    expect(queued.stdout.trim()).toBe(
      `Queued delivery ${failed.id} of task ${taskId} to ${target.origin}/hook.`,
    );
    const redelivered = await settledEvent(server, taskId);
    // A fresh round (one attempt so far), numbered after the first five.
    expect(redelivered).toMatchObject({ id: failed.id, state: "delivered", attempt_count: 1 });
    expect(redelivered.attempts.map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 500],
      [5, 500],
      [6, 200],
    ]);
    expect(target.requests.map((request) => request.headers["webhook-id"])).toEqual(Array(6).fill(failed.id));
  });

  it("redelivers on request with the same webhook-id", async () => {
    const target = await receiver(answering(200));
    const taskId = await createTask(server, {
      prompt: "send it twice",
      callback_url: `${target.origin}/hook`,
    });
    const first = await settledEvent(server, taskId);
    const response = await server.api(`/api/gen/tasks/${taskId}/webhooks/redeliver`, { method: "POST" });
    expect(response.status).toBe(202);
    const [one, two] = await requestsOf(target, 2);
    expect(two!.headers["webhook-id"]).toBe(first.id);
    expect(two!.body).toBe(one!.body);
  });
});

describe("slow and dead receivers", () => {
  const WORKING_SLOTS = 64;

  it("receivers that accept and never answer do not delay a fast one", async () => {
    // More silent receivers than the server's working slots (64, composition/engine-settings.ts), each its own origin.
    const silent = await Promise.all(Array.from({ length: WORKING_SLOTS + 6 }, () => receiver(() => {})));
    for (const target of silent)
      await createTask(server, { prompt: "into the void", callback_url: `${target.origin}/hook` });
    // Every working slot is now held by a receiver that will not answer for 30 s.
    await eventually(
      async () =>
        silent.filter((target) => target.requests.length > 0).length >= WORKING_SLOTS ? true : undefined,
      10_000,
      "the silent receivers to be holding the slots",
    );

    const fast = await receiver(answering(204));
    const startedAt = performance.now();
    const taskIds: string[] = [];
    for (let index = 0; index < 5; index++)
      taskIds.push(
        await createTask(server, { prompt: `fast ${index}`, callback_url: `${fast.origin}/hook` }),
      );
    await requestsOf(fast, 5, 20_000);
    // Well inside the 30 s a silent receiver holds its attempt (margin for a busy machine).
    expect(performance.now() - startedAt).toBeLessThan(20_000);
    const delivered = new Set(
      fast.requests.map((request) => (JSON.parse(request.body) as { task_id: string }).task_id),
    );
    expect(delivered).toEqual(new Set(taskIds));
    // And every silent receiver got its attempt too: none was starved.
    await eventually(
      async () => (silent.every((target) => target.requests.length === 1) ? true : undefined),
      10_000,
      "every silent receiver to get its attempt",
    );
  });
});
