/// <reference types="node" />
/** A loopback HTTP endpoint that records the webhooks the server sends (start the server with GENVIDEO_ALLOW_INSECURE_CALLBACKS=1). */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { listenOnLoopback } from "./loopback.js";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` webhooks have arrived in all, without polling. */
  whenReceived(count: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(status = 200): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: { count: number; resolve: (all: ReceivedWebhook[]) => void }[] = [];
  const settle = () => {
    for (const waiter of waiters.filter(({ count }) => received.length >= count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(received);
    }
  };
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.writeHead(status).end();
      settle();
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    whenReceived: (count) =>
      new Promise((resolve) => {
        waiters.push({ count, resolve });
        settle();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
