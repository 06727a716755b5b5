/// <reference types="node" />
/**
 * What Prism proxies to: the reference server, byte for byte, except for a request carrying
 * `x-replay: <name>`, which gets the reference server's own recorded answer of that name. Prism
 * cannot carry two of the server's answers (it never answers a body that is not JSON, and refuses
 * bodies over 10 MB), so those are recorded straight from the server and replayed through Prism.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { serveOnLoopback } from "@genvideo/server/testing";

export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

export async function startSwitchUpstream(
  server: string,
  recorded: Map<string, RecordedAnswer>,
): Promise<{ url: string; close(): Promise<void> }> {
  const { origin, close } = await serveOnLoopback((request, response) => {
    void answer(server, recorded, request, response).catch((error: unknown) => {
      response.writeHead(599).end(String(error));
    });
  });
  return { url: origin, close };
}

async function answer(
  server: string,
  recorded: Map<string, RecordedAnswer>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const replay = request.headers["x-replay"];
  if (typeof replay === "string") {
    const saved = recorded.get(replay);
    if (!saved) throw new Error(`no recorded answer named ${replay}`);
    response.writeHead(saved.status, saved.headers).end(saved.body);
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const method = request.method ?? "GET";
  const upstream = await fetch(new URL(request.url ?? "/", server), {
    method,
    headers,
    ...(method === "GET" || method === "HEAD" ? {} : { body: Buffer.concat(chunks) }),
  });
  const out: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) || name === "content-length") out[name] = value;
  });
  response.writeHead(upstream.status, out);
  if (upstream.body) Readable.fromWeb(upstream.body as never).pipe(response);
  else response.end();
}
