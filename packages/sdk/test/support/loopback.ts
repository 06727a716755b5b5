/// <reference types="node" />
// The one way the SDK's tests start a loopback server. The server's testing entry has helpers like
// these (its listenOnLoopback resolves with the port; every caller here wants the origin), but the
// SDK cannot depend on @genvideo/server: the server depends on the SDK.
import { createServer, type Server } from "node:http";

/**
 * Starts `server` on 127.0.0.1, on `port` or (0) one the OS picks, and resolves with its
 * origin, `http://127.0.0.1:<port>` (no trailing slash).
 */
export async function originOnLoopback(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A loopback port free right now, for a server a test starts later on purpose. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  const { port } = new URL(await originOnLoopback(probe));
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return Number(port);
}

/** Closes `server` now, dropping open connections (a stalled response included). */
export function closeNow(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
