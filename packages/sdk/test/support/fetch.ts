/// <reference types="node" />
// Test doubles for the transport: a scripted `fetch` that records what the SDK sent.

/** One scripted answer: a response, an error to throw, or a function of the request. */
export type Reply = Response | Error | ((request: Request) => Response | Promise<Response>);

/** What the SDK sent, read eagerly so tests can inspect it after the body stream is gone. */
export interface SentRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string;
  at: number;
}

/** A JSON response with the given status and headers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An error body as the service sends it. */
export function errorBody(
  status: number,
  code: string,
  message = "nope",
  headers: Record<string, string> = {},
): Response {
  return json({ error: "Error", code, message }, status, headers);
}

/** A fetch failure as undici reports it, with the given system error code as its cause. */
export function networkFailure(code: string, message = "fetch failed"): TypeError {
  return new TypeError(message, { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

/** Never answers; rejects with the signal's reason when the request is aborted (as fetch does). */
export function hang(request: Request): Promise<Response> {
  return new Promise((_, reject) => {
    request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
  });
}

/** A fetch that answers with `replies` in order (the last one repeats) and records every request. */
export function scriptedFetch(...replies: Reply[]): { fetch: typeof fetch; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const fetchDouble = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: await request.clone().text(),
      at: Date.now(),
    });
    const reply = replies[Math.min(sent.length - 1, replies.length - 1)];
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return reply(request);
    return reply!.clone();
  };
  return { fetch: fetchDouble as typeof fetch, sent };
}

export const taskId = "4f1c2a9e-3b7d-4c8e-9a6f-1d2e3f4a5b6c";
export const created: { success: true; message: "Task created"; task_id: string } = {
  success: true,
  message: "Task created",
  task_id: taskId,
};
export const completed: { status: "completed"; task_id: string; message: string; video_url: string } = {
  status: "completed",
  task_id: taskId,
  message: "Video ready",
  video_url: "https://example.com/v.mp4",
};
