/**
 * The customer's webhook endpoint, reduced to a recorder: it keeps each webhook's raw body and
 * headers, and `GET /received/<task_id>` answers with them once that task's webhook has come,
 * so a flow in any runtime can verify it with the SDK.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

interface Recorded {
  body: string;
  headers: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(", ") : `${value}`,
    ]),
  );
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received = new Map<string, Recorded>();
  const waiting = new Map<string, ((webhook: Recorded) => void)[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST") {
        const body = Buffer.concat(chunks).toString("utf8");
        const taskId = (JSON.parse(body) as { task_id: string }).task_id;
        const webhook = { body, headers: flatHeaders(request.headers) };
        if (!received.has(taskId)) received.set(taskId, webhook);
        for (const resolve of waiting.get(taskId) ?? []) resolve(webhook);
        waiting.delete(taskId);
        response.writeHead(204).end();
        return;
      }
      const taskId = /^\/received\/([\w-]+)$/.exec(request.url ?? "")?.[1];
      if (!taskId) {
        response.writeHead(404).end();
        return;
      }
      const answer = (webhook: Recorded) => {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(webhook));
      };
      const known = received.get(taskId);
      if (known) answer(known);
      else waiting.set(taskId, [...(waiting.get(taskId) ?? []), answer]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
