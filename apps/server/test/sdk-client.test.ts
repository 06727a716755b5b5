/// <reference types="node" />
// End to end: the SDK (@genvideo/sdk) against this server, started on loopback. It lives here, not in
// the SDK, because the server depends on the SDK (its webhook receiver check).
import { createServer } from "node:http";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type GenerationRequestInput,
  GenVideo,
  NotFoundError,
  TaskFailedError,
  verifyWebhook,
  type WebhookPayload,
} from "@genvideo/sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback } from "../src/testing/loopback.js";
import { TEST_API_KEY, TEST_WEBHOOK_SECRET } from "../src/testing/reference-server.js";
import { testImages } from "./support/images.js";
import { useServer } from "./support/use-server.js";

const { red, blue } = await testImages();
let client: GenVideo;
const wait = { interval: 20, maxInterval: 100, timeout: 30_000 };

describe("against the reference server", { timeout: 60_000 }, () => {
  // Service time runs 600 times faster, so the 10-minute deadline is 1 s and [[timeout]] resolves quickly.
  const server = useServer({
    env: {
      GENVIDEO_TIME_SCALE: "600",
      GENVIDEO_RENDERER: "fixture",
      GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
      GENVIDEO_RATE_LIMITS: "off",
    },
    hookTimeoutMs: 60_000,
  });
  beforeAll(() => {
    client = new GenVideo({ apiKey: TEST_API_KEY, baseUrl: server.url });
  });

  it.each([
    ["text", { prompt: "a red fox running through snow" }],
    [
      "frame-to-frame",
      {
        prompt: "red to blue",
        model_type: "gen-3-fast",
        start_frame: red,
        end_frame: blue,
        aspect_ratio: "16:9",
      },
    ],
    ["reference images", { prompt: "in turn", model_type: "gen-3-fast", reference_images: [red, blue] }],
  ] satisfies [string, GenerationRequestInput][])(
    "generates a video from a %s request",
    async (_, request) => {
      const seen = new Set<string>();
      const video = await client.generate(request, {
        ...wait,
        onProgress: (status) => seen.add(status.status),
      });
      expect(video).toMatchObject({ status: "completed", video_url: expect.stringContaining(".mp4") });
      expect(seen.has("completed")).toBe(true);
      const download = await fetch(video.video_url);
      expect(download.headers.get("content-type")).toBe("video/mp4");
      await download.body?.cancel();
    },
  );

  it.each([
    ["[[fail:UNSAFE_CONTENT]]", "UNSAFE_CONTENT"],
    ["[[fail:GENERATION_FAILED]]", "GENERATION_FAILED"],
    ["[[timeout]]", "TIMEOUT"],
  ])("ends a task marked %s with TaskFailedError %s", async (marker, code) => {
    const error = await client
      .generate({ prompt: `a fox ${marker}` }, wait)
      .catch((caught: unknown) => caught);
    expect(TaskFailedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code, task: { status: "failed", message: code, video_url: null } });
    expect((error as TaskFailedError).requestId).toBeTruthy();
  });

  it("returns the first task for a repeated idempotency key, and refuses the key with another body", async () => {
    const key = `sdk-e2e-${Date.now()}`;
    const first = await client.createTask({ prompt: "once only" }, { idempotencyKey: key });
    const again = await client.createTask({ prompt: "once only" }, { idempotencyKey: key });
    expect(again.task_id).toBe(first.task_id);
    const reused = await client
      .createTask({ prompt: "another" }, { idempotencyKey: key })
      .catch((caught: unknown) => caught);
    expect(ConflictError.isInstance(reused) && reused.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("maps the server's errors", async () => {
    const stranger = new GenVideo({ apiKey: "gen_sk_not_a_real_key_at_all_00000000", baseUrl: server.url });
    await expect(stranger.getStatus("x")).rejects.toSatisfy(AuthenticationError.isInstance);
    const missing = await client
      .getStatus("00000000-0000-4000-8000-000000000000")
      .catch((caught: unknown) => caught);
    expect(NotFoundError.isInstance(missing) && missing.requestId).toBeTruthy();
    const invalid = await client
      .createTask({ prompt: "x", start_frame: red })
      .catch((caught: unknown) => caught);
    expect(BadRequestError.isInstance(invalid) && invalid.code).toBe("INVALID_REQUEST");
    expect((invalid as BadRequestError).body.issues?.length).toBeGreaterThan(0);
  });

  it("receives a webhook and verifies it", async () => {
    const deliveries: WebhookPayload[] = [];
    const receiver = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      try {
        deliveries.push(await verifyWebhook(Buffer.concat(chunks), request.headers, TEST_WEBHOOK_SECRET));
        response.writeHead(204).end();
      } catch (error) {
        response.writeHead(400).end(String(error));
      }
    });
    const port = await listenOnLoopback(receiver);
    const callback_url = `http://127.0.0.1:${port}/hooks/genvideo`;
    try {
      const video = await client.generate({ prompt: "a webhook fox", callback_url }, wait);
      const deadline = Date.now() + 10_000;
      while (deliveries.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(deliveries).toEqual([
        {
          success: true,
          message: expect.any(String),
          task_id: video.task_id,
          video_url: expect.stringContaining(".mp4"),
        },
      ]);
    } finally {
      receiver.close();
    }
  });
});
