/// <reference types="node" />
import { createServer as createHttpServer, type RequestListener } from "node:http";
import type { Server } from "node:net";
import { createServer } from "node:net";

/**
 * Starts `server` listening on a port of 127.0.0.1 (or `host`) the OS picks, and resolves with
 * that port: the one way tests and their helpers start a loopback server.
 */
export async function listenOnLoopback(server: Server, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as { port: number }).port;
}

/**
 * A loopback TCP port free right now (the OS picks it), for a server a test starts next that
 * cannot listen on port 0 and report its port itself (a child process, a tool).
 */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  const port = await listenOnLoopback(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A loopback HTTP server a test started: its origin, and a close that drops open connections. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves `listener` on a loopback port the OS picks: for the receivers, upstreams and pages a
 * test starts beside the server. `close()` ends open connections too, so it never waits on a
 * client that keeps one alive.
 */
export async function serveOnLoopback(listener: RequestListener): Promise<LoopbackServer> {
  const server = createHttpServer(listener);
  const port = await listenOnLoopback(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
