/// <reference types="node" />
// The SDK over real loopback sockets against the stub in stub-server.ts: runtime errors such as
// undici's ECONNREFUSED come from Node itself here, not from a test double.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  type GenerationRequestInput,
  GenVideo,
  NotFoundError,
  RequestTimeoutError,
  TaskFailedError,
  verifyWebhook,
  WaitTimeoutError,
  type WebhookPayload,
} from "../src/index.js";
import { closeNow, freeLoopbackPort, originOnLoopback } from "./support/loopback.js";
import { apiKey, type StubServer, startStubServer, webhookSecret } from "./support/stub-server.js";

let stub: StubServer;
let client: GenVideo;
const fast = { interval: 5, maxInterval: 20 };

beforeAll(async () => {
  stub = await startStubServer();
  client = new GenVideo({ apiKey, baseUrl: stub.url });
});
afterAll(() => stub.close());

describe("against a loopback stub of the service", () => {
  it.each([
    ["text", { prompt: "a fox in the snow" }],
    [
      "frame-to-frame",
      {
        prompt: "morph",
        model_type: "gen-3-fast",
        start_frame: "data:image/jpeg;base64,/9j/",
        end_frame: "data:image/jpeg;base64,/9j/",
      },
    ],
    [
      "reference images",
      {
        prompt: "a dog",
        model_type: "gen-3-fast",
        reference_images: ["data:image/jpeg;base64,/9j/"],
        aspect_ratio: "16:9",
      },
    ],
  ] satisfies [string, GenerationRequestInput][])("generates a %s video", async (_, request) => {
    const seen: string[] = [];
    const video = await client.generate(request, {
      ...fast,
      onProgress: (status) => seen.push(status.status),
    });
    expect(video).toMatchObject({ status: "completed", video_url: expect.stringMatching(/\.mp4$/) });
    expect(seen).toEqual(["queued", "processing", "completed"]);
  });

  it.each(["UNSAFE_CONTENT", "GENERATION_FAILED"])("reports a task failed with %s", async (code) => {
    const error = await client
      .generate({ prompt: `a fox [[fail:${code}]]` }, fast)
      .catch((caught: unknown) => caught);
    expect(TaskFailedError.isInstance(error) && error.code).toBe(code);
    expect((error as TaskFailedError).requestId).toMatch(/^req_/);
  });

  it("reports a task that timed out as TaskFailedError with TIMEOUT", async () => {
    const error = await client
      .generate({ prompt: "slow [[timeout]]" }, fast)
      .catch((caught: unknown) => caught);
    expect(TaskFailedError.isInstance(error) && error.code).toBe("TIMEOUT");
  });

  it("stops waiting at the caller's timeout and can resume from the error", async () => {
    const { task_id } = await client.createTask({ prompt: "forever [[never]]" });
    const error = await client
      .pollUntilDone(task_id, { ...fast, timeout: 100 })
      .catch((caught: unknown) => caught);
    expect(WaitTimeoutError.isInstance(error) && error.lastStatus?.status).toBe("processing");
    expect((error as WaitTimeoutError).taskId).toBe(task_id);
  });

  it("maps the service's errors", async () => {
    const unauthorised = new GenVideo({ apiKey: "gen_sk_wrong", baseUrl: stub.url });
    await expect(unauthorised.getStatus("x")).rejects.toSatisfy(AuthenticationError.isInstance);
    await expect(client.getStatus("00000000-0000-4000-8000-000000000000")).rejects.toSatisfy(
      NotFoundError.isInstance,
    );
    const invalid = await client.createTask({ prompt: "  " }).catch((caught: unknown) => caught);
    expect(BadRequestError.isInstance(invalid) && invalid.body.issues).toEqual([
      { path: "prompt", message: "required" },
    ]);
  });

  it("returns the first task again for a repeated idempotency key", async () => {
    const first = await client.createTask({ prompt: "once" }, { idempotencyKey: "order-1" });
    const again = await client.createTask({ prompt: "once" }, { idempotencyKey: "order-1" });
    expect(again.task_id).toBe(first.task_id);
  });
});

describe("webhooks over loopback", () => {
  it("receives a webhook and verifies it from the raw body and Node's headers", async () => {
    let resolveDelivery: (payload: WebhookPayload) => void;
    const delivered = new Promise<WebhookPayload>((resolve) => {
      resolveDelivery = resolve;
    });
    const receiver = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      try {
        resolveDelivery(await verifyWebhook(Buffer.concat(chunks), request.headers, webhookSecret));
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
    const callback_url = `${await originOnLoopback(receiver)}/hooks`;
    try {
      const { task_id } = await client.createTask({ prompt: "a fox [[fail:UNSAFE_CONTENT]]", callback_url });
      await expect(delivered).resolves.toEqual({
        success: false,
        message: "UNSAFE_CONTENT",
        task_id,
        video_url: null,
      });
    } finally {
      receiver.close();
    }
  });
});

describe("retries over real sockets", () => {
  it("retries a create without a key when the connection was refused, and creates one task", async () => {
    const port = await freeLoopbackPort();
    const late = new GenVideo({ apiKey, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 5 });
    let server: StubServer | undefined;
    const starting = new Promise<void>((resolve) =>
      setTimeout(async () => {
        server = await startStubServer(port);
        resolve();
      }, 100),
    );
    try {
      await expect(late.createTask({ prompt: "a fox" }, { idempotencyKey: false })).resolves.toMatchObject({
        success: true,
      });
      await starting;
      expect(server!.received).toEqual(["POST /api/gen/generate"]);
    } finally {
      await starting;
      await server?.close();
    }
  });

  it("never retries a create without a key once the service has read it, but does with a key", async () => {
    let requests = 0;
    const dropping: Server = createServer((request) => {
      requests += 1;
      request.socket.destroy();
    });
    const baseUrl = await originOnLoopback(dropping);
    const dropped = new GenVideo({ apiKey, baseUrl, maxRetries: 2 });
    try {
      await expect(dropped.createTask({ prompt: "x" }, { idempotencyKey: false })).rejects.toSatisfy(
        ConnectionError.isInstance,
      );
      expect(requests).toBe(1);
      await expect(dropped.createTask({ prompt: "x" })).rejects.toSatisfy(ConnectionError.isInstance);
      expect(requests).toBe(4);
    } finally {
      dropping.close();
    }
  });
});

describe("bodies over real sockets", () => {
  // Headers and the first bytes of a status at once, then the rest never (or a dropped socket).
  async function stallingServer(then: "stall" | "drop") {
    let requests = 0;
    const server: Server = createServer((_request, response) => {
      requests += 1;
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"status":"process');
      if (then === "drop") setTimeout(() => response.socket?.destroy(), 20);
    });
    const baseUrl = await originOnLoopback(server);
    return {
      client: new GenVideo({ apiKey, baseUrl }),
      requests: () => requests,
      close: () => closeNow(server),
    };
  }

  it("ends a call whose body stalls after the headers at its timeout, without retrying", async () => {
    const stalling = await stallingServer("stall");
    try {
      // The body never ends: only the timeout can end this call.
      const error = await stalling.client.getStatus("t", { timeout: 200 }).catch((caught: unknown) => caught);
      expect(RequestTimeoutError.isInstance(error) && error.timeout).toBe(200);
      expect(stalling.requests()).toBe(1);
    } finally {
      stalling.close();
    }
  });

  it("rejects with the caller's reason when aborted while the body arrives", async () => {
    const stalling = await stallingServer("stall");
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("user left")), 50);
      await expect(stalling.client.getStatus("t", { signal: controller.signal })).rejects.toThrow(
        "user left",
      );
    } finally {
      stalling.close();
    }
  });

  it("does not retry a read whose body is cut off, and reports the runtime's error", async () => {
    const dropping = await stallingServer("drop");
    try {
      const error = await dropping.client.getStatus("t").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TypeError);
      expect(dropping.requests()).toBe(1);
    } finally {
      dropping.close();
    }
  });
});
