import { signWebhook, type WebhookPayload } from "@genvideo/sdk";
import { type RunningServer, startServer, TEST_WEBHOOK_SECRET } from "@genvideo/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReceiver } from "../webhook-receiver/receiver.ts";
import { runExample, startExample } from "./programs.ts";

const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const otherSecret = `whsec_${Buffer.alloc(32, 8).toString("base64")}`;
const completed: WebhookPayload = {
  success: true,
  message: "Video generated successfully",
  task_id: "3f1c2b7e-9a4d-4c1e-8f2a-5b6c7d8e9f01",
  video_url: "https://videos.example/3f1c2b7e.mp4",
};

interface Delivery {
  body?: string;
  headers?: Record<string, string>;
}

async function delivery(options: Partial<Parameters<typeof signWebhook>[0]> = {}): Promise<Delivery> {
  const body = JSON.stringify(completed);
  return { body, headers: await signWebhook({ payload: body, secret, ...options }) };
}

function post(receiver: ReturnType<typeof createReceiver>, { body, headers }: Delivery): Promise<Response> {
  return Promise.resolve(
    receiver.fetch(
      new Request("http://receiver.test/webhooks/genvideo", { method: "POST", body: body ?? null, headers }),
    ),
  );
}

/** A receiver whose events land in a list, each resolving `next()`. */
function recordingReceiver(options: { secret?: string | string[]; hold?: Promise<void> } = {}) {
  const events: { payload: WebhookPayload; webhookId: string }[] = [];
  let announce: () => void = () => {};
  const receiver = createReceiver({
    secret: options.secret ?? secret,
    onEvent: async (payload, webhookId) => {
      await options.hold;
      events.push({ payload, webhookId });
      announce();
    },
  });
  const next = () => new Promise<void>((resolve) => (announce = resolve));
  return { receiver, events, next };
}

describe("examples/webhook-receiver, driven through its fetch handler", () => {
  it("acknowledges a genuine delivery with 204 and hands the payload to the work after", async () => {
    const { receiver, events, next } = recordingReceiver();
    const handled = next();
    const signed = await delivery({ id: "msg_one" });

    expect((await post(receiver, signed)).status).toBe(204);
    await handled;
    expect(events).toEqual([{ payload: completed, webhookId: "msg_one" }]);
  });

  it("answers before the work is done", async () => {
    let release: () => void = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    const { receiver, events, next } = recordingReceiver({ hold });

    expect((await post(receiver, await delivery())).status).toBe(204);
    expect(events).toHaveLength(0);
    const handled = next();
    release();
    await handled;
    expect(events).toHaveLength(1);
  });

  it("acknowledges a repeated webhook-id without doing the work twice", async () => {
    const { receiver, events, next } = recordingReceiver();
    const first = await delivery({ id: "msg_retried" });
    const handled = next();
    expect((await post(receiver, first)).status).toBe(204);
    await handled;

    // A retry: same id, a new timestamp and signature.
    const retry = await delivery({ id: "msg_retried", timestamp: Date.now() + 1_000 });
    expect((await post(receiver, retry)).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toHaveLength(1);
  });

  it("accepts both secrets during a rotation", async () => {
    const { receiver, next } = recordingReceiver({ secret: [otherSecret, secret] });
    const handled = next();
    expect((await post(receiver, await delivery())).status).toBe(204);
    await handled;
  });

  it.each([
    [
      "a body changed after signing",
      async () => ({ ...(await delivery()), body: JSON.stringify(completed, null, 2) }),
    ],
    ["a signature made with another secret", () => delivery({ secret: otherSecret })],
    ["a timestamp ten minutes old", () => delivery({ timestamp: Date.now() - 10 * 60_000 })],
    ["a timestamp ten minutes ahead", () => delivery({ timestamp: Date.now() + 10 * 60_000 })],
    [
      "no webhook-signature header",
      async () => {
        const { body, headers = {} } = await delivery();
        const { "webhook-signature": _signature, ...rest } = headers;
        return { body, headers: rest };
      },
    ],
  ])("refuses %s with 400 and does no work", async (_name, make) => {
    const { receiver, events } = recordingReceiver();

    const response = await post(receiver, await make());
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/^refused: /);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toHaveLength(0);
  });
});

describe("examples/webhook-receiver, run with node against the reference server", () => {
  let api: RunningServer;
  beforeAll(async () => {
    api = await startServer({ env: { GENVIDEO_TIME_SCALE: "60", GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1" } });
  });
  afterAll(() => api?.stop());

  it("receives the real signed webhook of a task and prints its video URL", async () => {
    const receiver = startExample("webhook-receiver/server.ts", {
      GENVIDEO_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PORT: "0",
    });
    try {
      const [, callbackUrl] = await receiver.line(/^listening on (\S+)$/m);
      const created = await api.api("/api/gen/generate", {
        json: { prompt: "a kite over a beach", callback_url: callbackUrl },
      });
      const { task_id } = (await created.json()) as { task_id: string };

      const [, videoUrl] = await receiver.line(new RegExp(`^${task_id}: (\\S+)$`, "m"));
      expect(videoUrl).toContain(`/videos/${task_id}.mp4?`);
    } finally {
      await receiver.stop();
    }
  });

  it("will not start without the signing secret", async () => {
    const result = await runExample("webhook-receiver/server.ts", [], { PORT: "0" });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("GENVIDEO_WEBHOOK_SECRET");
  });
});
