/**
 * Tasks through the real server on SQLite, with service time at 600x (the
 * 10-minute deadline passes in one real second): each request form, each
 * scenario marker, the statuses they end in, refunds, and the webhook.
 */
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { createTask, credits, getStatus, waitForTerminal } from "./support/api.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  startWebhookReceiver,
  TEST_WEBHOOK_SECRET,
  type WebhookReceiver,
} from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

let receiver: WebhookReceiver;
const server = useServer({
  env: { ...FAST_SERVICE_ENV, GENVIDEO_UNSAFE_WORDS: "forbiddenword" },
  afterStop: () => receiver?.close(),
});

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

// Header-only images: valid for the API; the fixture renderer never decodes them.
const JPEG = `data:image/jpeg;base64,${Buffer.from("ffd8ffe000104a46494600010100000100010000ffc0000b080024004001011100ffd9", "hex").toString("base64")}`;

describe("request forms", () => {
  it.each([
    ["text", 1, { prompt: "a paper boat on a river" }],
    ["text on gen-3 in 9:16", 2, { prompt: "a tall waterfall", model_type: "gen-3", aspect_ratio: "9:16" }],
    [
      "frame-to-frame",
      1,
      {
        prompt: "day to night",
        model_type: "gen-3-fast",
        start_frame: JPEG,
        end_frame: JPEG,
        aspect_ratio: "16:9",
      },
    ],
    [
      "reference images",
      1,
      { prompt: "a cat", model_type: "gen-3-fast", reference_images: [JPEG, JPEG, JPEG, JPEG] },
    ],
    ["reference image, 1:1", 1, { prompt: "a dog", reference_images: [JPEG], aspect_ratio: "1:1" }],
    ["any form with a callback_url", 1, { prompt: "call me", callback_url: "http://127.0.0.1:9/hook" }],
  ])("%s is accepted, charged %i, and completes with a video", async (_, cost, body) => {
    const before = await credits(server);
    const taskId = await createTask(server, body);
    expect(taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await credits(server)).toBe(before - cost);
    const done = await waitForTerminal(server, taskId);
    expect(done).toMatchObject({ status: "completed", task_id: taskId, progress: 100 });
    expect(done.video_url).toMatch(
      new RegExp(`^${server.url}/videos/${taskId}\\.mp4\\?expires=\\d+&signature=`),
    );
    expect(await credits(server)).toBe(before - cost);
  });
});

describe("statuses and scenarios", () => {
  it("shows processing with a progress while a task runs, and no video_url", async () => {
    const taskId = await createTask(server, { prompt: "slow one [[delay:5m]]" });
    const status = await eventually(async () => {
      const s = await getStatus(server, taskId);
      return s.status === "processing" ? s : undefined;
    });
    expect(status).toMatchObject({ task_id: taskId, message: expect.any(String) });
    expect(status).not.toHaveProperty("video_url");
    expect(status.progress).toBeGreaterThanOrEqual(0);
    expect(status.progress).toBeLessThan(100);
    expect(Date.parse(status.created_at as string)).toBeGreaterThan(0);
  });

  it("[[delay:90s]] takes 90 s of service time", async () => {
    const taskId = await createTask(server, { prompt: "take your time [[delay:90s]]" });
    const done = await waitForTerminal(server, taskId);
    expect(done.status).toBe("completed");
    const took = Date.parse(done.updated_at as string) - Date.parse(done.created_at as string);
    expect(took).toBeGreaterThanOrEqual(90_000);
    expect(took).toBeLessThan(10 * 60_000);
  });

  it.each([
    ["[[fail:UNSAFE_CONTENT]]", "UNSAFE_CONTENT", false, "a prompt [[fail:UNSAFE_CONTENT]]"],
    ["the unsafe word list", "UNSAFE_CONTENT", false, "a ForbiddenWord appears"],
    ["[[fail:GENERATION_FAILED]]", "GENERATION_FAILED", true, "a prompt [[fail:GENERATION_FAILED]]"],
  ])("%s fails the task with %s (refunded: %s)", async (_, code, refunded, prompt) => {
    const before = await credits(server);
    const taskId = await createTask(server, { prompt });
    const done = await waitForTerminal(server, taskId);
    expect(done).toMatchObject({ status: "failed", task_id: taskId, message: code, video_url: null });
    expect(await credits(server)).toBe(refunded ? before : before - 1);
  });

  it("[[timeout]] fails with TIMEOUT at the deadline, refunded at GET /api/gen/account", async () => {
    const before = await credits(server);
    const taskId = await createTask(server, { prompt: "never ends [[timeout]]", model_type: "gen-3" });
    expect(await credits(server)).toBe(before - 2);
    const done = await waitForTerminal(server, taskId);
    expect(done).toMatchObject({ status: "failed", message: "TIMEOUT", video_url: null });
    const took = Date.parse(done.updated_at as string) - Date.parse(done.created_at as string);
    expect(took).toBeGreaterThanOrEqual(10 * 60_000);
    expect(await credits(server)).toBe(before);
  });
});

describe("webhooks", () => {
  it("posts a signed notification to the callback_url on completion and on failure", async () => {
    const ok = await createTask(server, { prompt: "notify me", callback_url: receiver.url });
    const failed = await createTask(server, {
      prompt: "notify [[fail:UNSAFE_CONTENT]]",
      callback_url: receiver.url,
    });
    await eventually(async () => (receiver.received.length >= 2 ? true : undefined), 10_000, "two webhooks");
    const verifier = new Webhook(TEST_WEBHOOK_SECRET);
    const payloads = receiver.received.map((webhook) => {
      expect(webhook.headers["content-type"]).toMatch(/^application\/json/);
      return verifier.verify(webhook.body, webhook.headers as Record<string, string>) as Record<
        string,
        unknown
      >;
    });
    const byTask = new Map(payloads.map((payload) => [payload.task_id, payload]));
    expect(byTask.get(ok)).toMatchObject({
      success: true,
      task_id: ok,
      video_url: expect.stringContaining(`/videos/${ok}.mp4`),
    });
    expect(byTask.get(failed)).toEqual({
      success: false,
      message: "UNSAFE_CONTENT",
      task_id: failed,
      video_url: null,
    });
  });
});

describe("videos", () => {
  it("serves the video at its signed URL without auth, with Range support", async () => {
    const taskId = await createTask(server, { prompt: "download me" });
    const { video_url: videoUrl } = await waitForTerminal(server, taskId);
    const whole = await fetch(videoUrl as string);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const part = await fetch(videoUrl as string, { headers: { range: "bytes=0-7" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(0, 8));
    const tampered = await fetch((videoUrl as string).replace(/signature=[^&]+/, "signature=AAAA"));
    expect(tampered.status).toBeGreaterThanOrEqual(400);
  });
});
