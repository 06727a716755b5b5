/**
 * Loopback HTTP receivers for the sender tests. Each counts TCP connections
 * as well as requests, so a refusal test can prove no packet was sent.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { Socket } from "node:net";
import { listenOnLoopback } from "../../src/testing/loopback.js";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** The sender's address. */
  from: string;
}

export interface TestReceiver {
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`), no trailing slash. */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  connections: number;
  /** Resolves when a connection the receiver accepted has closed. */
  nextClose(): Promise<void>;
  close(): Promise<void>;
}

export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => void;

export interface ReceiverOptions {
  host?: string;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
}

export async function startReceiver(
  handler: ReceiverHandler,
  { host = "127.0.0.1", tls }: ReceiverOptions = {},
): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const closeWaiters: Array<() => void> = [];
  const listener: RequestListener = (incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const request: ReceivedRequest = {
        method: incoming.method ?? "",
        url: incoming.url ?? "",
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        from: incoming.socket.remoteAddress ?? "",
      };
      requests.push(request);
      handler(request, response);
    });
  };
  const server = tls === undefined ? createServer(listener) : createTlsServer(tls, listener);
  const receiver: TestReceiver = {
    origin: "",
    port: 0,
    requests,
    connections: 0,
    nextClose: () => new Promise((resolve) => closeWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on("connection", (socket: Socket) => {
    receiver.connections++;
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      for (const waiter of closeWaiters.splice(0)) waiter();
    });
  });
  const port = await listenOnLoopback(server, host);
  receiver.port = port;
  const scheme = tls === undefined ? "http" : "https";
  receiver.origin = host.includes(":") ? `${scheme}://[${host}]:${port}` : `${scheme}://${host}:${port}`;
  return receiver;
}

/** A receiver answering every request with `status` and `body`. */
export function answering(status: number, body = "", headers: Record<string, string> = {}): ReceiverHandler {
  return (_request, response) => {
    response.writeHead(status, headers);
    response.end(body);
  };
}

/** Receivers a test file starts as it goes and closes together in its `afterAll`. */
export function receiverSet(): {
  start(handler: ReceiverHandler): Promise<TestReceiver>;
  closeAll(): Promise<void>;
} {
  const started: TestReceiver[] = [];
  return {
    async start(handler) {
      const receiver = await startReceiver(handler);
      started.push(receiver);
      return receiver;
    },
    closeAll: async () => {
      await Promise.all(started.splice(0).map((receiver) => receiver.close()));
    },
  };
}
