/** Runs a parity case against one target and writes down what came back, ids and times made neutral. */
import type { Credential, ParityCase, Step } from "./cases.js";

export interface ParityTarget {
  /** Sends a request to `path` (query included) under the target's base URL. */
  fetch(path: string, init: RequestInit): Promise<Response>;
  /** Lets `taskId` reach a terminal state: the server by waiting, the mock by moving its clock. */
  finish(taskId: string): Promise<void>;
  keys: { default: string; poor: string };
}

export interface Exchange {
  request: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Replaces what legitimately differs between two runs: ids (numbered by first appearance), times, URL hosts and signatures. */
export function neutral(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === "string") {
    if (ISO_TIME.test(value)) return "<time>";
    return value
      .replace(UUID, (id) => {
        if (!ids.has(id)) ids.set(id, `<id:${ids.size + 1}>`);
        return ids.get(id)!;
      })
      .replace(/^https?:\/\/[^/]+\/videos\//, "<base>/videos/")
      .replace(/expires=\d+/, "expires=<expires>")
      .replace(/signature=[^&]+/, "signature=<signature>");
  }
  if (Array.isArray(value)) return value.map((item) => neutral(item, ids));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, neutral(item, ids)]));
  return value;
}

function authorization(credential: Credential, keys: ParityTarget["keys"]): Record<string, string> {
  if (credential === "none") return {};
  if (typeof credential === "object") return { authorization: credential.header };
  return { authorization: `Bearer ${keys[credential]}` };
}

export async function runParityCase(target: ParityTarget, parityCase: ParityCase): Promise<Exchange[]> {
  const ids = new Map<string, string>();
  const exchanges: Exchange[] = [];
  let lastTask: string | undefined;
  let lastVideo: string | undefined;

  async function send(label: string, path: string, init: RequestInit) {
    const response = await target.fetch(path, init);
    const contentType = response.headers.get("content-type");
    const bytes = new Uint8Array(await response.arrayBuffer());
    // Both serve the engine's tiny MP4 (the server with GENVIDEO_RENDERER=fixture): same size too.
    const body = contentType?.includes("json")
      ? JSON.parse(new TextDecoder().decode(bytes))
      : new TextDecoder().decode(bytes.slice(4, 8)) === "ftyp"
        ? `<mp4, ${bytes.length} bytes>`
        : `<${bytes.length} bytes>`;
    exchanges.push({ request: label, status: response.status, contentType, body: neutral(body, ids) });
    return body as Record<string, unknown>;
  }

  for (const step of parityCase.steps as Step[]) {
    if (step.kind === "finish") {
      await target.finish(lastTask!);
      const status = await send("finish → status", `/api/gen/status/${lastTask}`, {
        headers: authorization("default", target.keys),
      });
      if (typeof status.video_url === "string") lastVideo = status.video_url;
      continue;
    }
    const video = lastVideo ? new URL(lastVideo) : undefined;
    const path = step.path
      .replace("{task}", lastTask ?? "")
      .replace(
        "{video-bad-signature}",
        video ? `${video.pathname}${video.search.replace(/signature=[^&]+/, "signature=AAAA")}` : "",
      )
      .replace("{video-unsigned}", video?.pathname ?? "")
      .replace("{video}", video ? `${video.pathname}${video.search}` : "");
    const headers: Record<string, string> = authorization(step.auth ?? "default", target.keys);
    let body: string | undefined;
    if (step.raw !== undefined || step.json !== undefined) {
      body = step.raw ?? JSON.stringify(step.json);
      if (step.contentType !== null) headers["content-type"] = step.contentType ?? "application/json";
    }
    if (step.idempotencyKey !== undefined) headers["idempotency-key"] = step.idempotencyKey;
    const label = `${step.method} ${step.path}`;
    const answer = await send(label, path, {
      method: step.method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    if (step.method === "POST" && typeof answer.task_id === "string") lastTask = answer.task_id;
  }
  return exchanges;
}
