/// <reference types="node" />
import { createServer } from "node:net";

/** A loopback TCP port free right now (the OS picks it), for a server a test starts next. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
