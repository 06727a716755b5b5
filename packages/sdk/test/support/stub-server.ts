/// <reference types="node" />
// A small loopback stand-in for the service, following docs/api.md closely enough to
// drive the SDK over real sockets: auth, idempotency, scenario markers in the prompt, statuses
// that advance with each read, and Standard Webhooks signed callbacks.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { signWebhook } from "../../src/index.js";
import { closeNow, originOnLoopback } from "./loopback.js";

export const apiKey = "gen_sk_stub_key_for_tests";
export const webhookSecret = "whsec_c3R1YiBzZXJ2ZXIgd2ViaG9vayBzZWNyZXQ=";

interface StubTask {
  id: string;
  reads: number;
  outcome: { status: "completed" } | { status: "failed"; code: string } | { status: "never" };
  callbackUrl: string | undefined;
}

export interface StubServer {
  url: string;
  server: Server;
  /** Every request the stub received, as `METHOD path`. */
  received: string[];
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, {
    "content-type": "application/json",
    "x-request-id": `req_${randomUUID()}`,
    ...headers,
  });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function outcomeOf(prompt: string): StubTask["outcome"] {
  const failure = /\[\[fail:([A-Z_]+)\]\]/.exec(prompt);
  if (failure) return { status: "failed", code: failure[1]! };
  if (prompt.includes("[[timeout]]")) return { status: "failed", code: "TIMEOUT" };
  if (prompt.includes("[[never]]")) return { status: "never" };
  return { status: "completed" };
}

/** Starts the stub on 127.0.0.1 (any free port unless `port` is given). */
export async function startStubServer(port = 0): Promise<StubServer> {
  const tasks = new Map<string, StubTask>();
  const idempotent = new Map<string, { body: string; response: unknown }>();
  const received: string[] = [];

  async function deliverWebhook(task: StubTask, url: string) {
    const done = task.outcome.status === "completed";
    const payload = {
      success: done,
      message: done ? "Video generated successfully" : (task.outcome as { code: string }).code,
      task_id: task.id,
      video_url: done ? `http://127.0.0.1/videos/${task.id}.mp4` : null,
    };
    const body = JSON.stringify(payload);
    await fetch(url, {
      method: "POST",
      headers: await signWebhook({ payload: body, secret: webhookSecret }),
      body,
    });
  }

  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://stub").pathname;
    received.push(`${request.method} ${path}`);
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return send(response, 401, { error: "Unauthorized", message: "Invalid API key" });
    }
    if (request.method === "POST" && path === "/api/gen/generate") {
      const text = await readBody(request);
      const key = request.headers["idempotency-key"] as string | undefined;
      const previous = key ? idempotent.get(key) : undefined;
      if (previous) {
        if (previous.body !== text) {
          return send(response, 422, {
            success: false,
            error: "x",
            code: "IDEMPOTENCY_KEY_REUSED",
            message: "x",
          });
        }
        return send(response, 200, previous.response);
      }
      const body = JSON.parse(text) as { prompt?: string; callback_url?: string };
      if (!body.prompt?.trim()) {
        return send(response, 400, {
          success: false,
          error: "Bad Request",
          code: "INVALID_REQUEST",
          message: "prompt is required",
          issues: [{ path: "prompt", message: "required" }],
        });
      }
      const task: StubTask = {
        id: randomUUID(),
        reads: 0,
        outcome: outcomeOf(body.prompt),
        callbackUrl: body.callback_url,
      };
      tasks.set(task.id, task);
      const created = { success: true, message: "Task created", task_id: task.id };
      if (key) idempotent.set(key, { body: text, response: created });
      if (task.callbackUrl && task.outcome.status !== "never") void deliverWebhook(task, task.callbackUrl);
      return send(response, 200, created);
    }
    const status = /^\/api\/gen\/status\/([^/]+)$/.exec(path);
    if (request.method === "GET" && status) {
      const task = tasks.get(decodeURIComponent(status[1]!));
      if (!task)
        return send(response, 404, { error: "Not Found", code: "NOT_FOUND", message: "Task not found" });
      task.reads += 1;
      const base = { task_id: task.id };
      if (task.reads === 1)
        return send(response, 200, { ...base, status: "queued", message: "Waiting in queue" });
      if (task.reads < 3 || task.outcome.status === "never") {
        return send(response, 200, { ...base, status: "processing", message: "Generating", progress: 50 });
      }
      if (task.outcome.status === "completed") {
        const video_url = `http://127.0.0.1/videos/${task.id}.mp4`;
        return send(response, 200, { ...base, status: "completed", message: "Video ready", video_url });
      }
      return send(response, 200, { ...base, status: "failed", message: task.outcome.code, video_url: null });
    }
    send(response, 404, { error: "Not Found", code: "NOT_FOUND", message: "Unknown route" });
  });

  return { url: await originOnLoopback(server, port), server, received, close: () => closeNow(server) };
}
