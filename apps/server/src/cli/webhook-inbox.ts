/**
 * The receiver `conformance --create` starts: an HTTP listener on loopback that answers every
 * request 204 and hands the requests to the check in arrival order.
 */
import { createServer } from "node:http";
import type { ReceivedWebhookRequest, WebhookInbox } from "@genvideo/sdk/conformance";

/** At most this much of a request body is kept: a webhook's payload is a few hundred bytes. */
const BODY_LIMIT = 64 * 1024;

export interface LocalWebhookInbox extends WebhookInbox {
  /** Where it listens, on this machine. */
  readonly localUrl: string;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (`port` 0: one the OS picks). `publicUrl` is the `callback_url` to hand out
 * when the deployment reaches this listener another way (a tunnel); by default the local URL.
 */
export async function startWebhookInbox(port: number, publicUrl?: string): Promise<LocalWebhookInbox> {
  const arrived: ReceivedWebhookRequest[] = [];
  const waiting: ((received: ReceivedWebhookRequest) => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      const received = {
        method: request.method ?? "",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      response.writeHead(204).end();
      const waiter = waiting.shift();
      if (waiter) waiter(received);
      else arrived.push(received);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const localUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}/genvideo-webhook`;
  return {
    url: publicUrl ?? localUrl,
    localUrl,
    next(timeoutMs) {
      const ready = arrived.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1);
          resolve(undefined);
        }, timeoutMs);
        const take = (received: ReceivedWebhookRequest) => {
          clearTimeout(timer);
          resolve(received);
        };
        waiting.push(take);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
