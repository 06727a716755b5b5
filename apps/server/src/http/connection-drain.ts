/**
 * The HTTP side of a graceful stop, bounded: stop listening, let the requests
 * in flight finish, close every other connection at once, and close what is
 * still busy when the drain's deadline comes (docs/operating.md, "Connections").
 *
 * Node's `server.close()` alone waits for connections it does not count as
 * idle, and after it Node no longer enforces `headersTimeout`, so nothing ends them:
 * - a connection that never sent a byte. Browsers open them ahead of use
 *   (preconnect), and undici opens one after it drops a connection whose response
 *   body was abandoned, then leaves it unused. Each holds the close until its
 *   client's pool lets it go: for undici, the server's keep-alive (75 s) less 2 s.
 * - a connection that stops sending halfway through a request (forever).
 * - the connection of a request answered during the drain, which Node keeps alive
 *   for the next request (75 s), since nothing told the client it closes.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type Threaded, ThreadedList } from "../threaded-list.js";

export interface ConnectionDrain {
  /**
   * Stops listening and resolves once the last connection has closed: at once but for
   * requests in flight, by `deadlineMs` at the latest. `cut` counts the connections
   * still busy at the deadline, closed with whatever they were doing.
   */
  close(deadlineMs: number): Promise<{ cut: number }>;
}

/** A response being answered. */
interface Answering extends Threaded<Answering> {
  response: ServerResponse;
}

/** Follows `server`'s connections from now on (call it before the server takes any). */
export function drainOnClose(server: Server): ConnectionDrain {
  const connections = new Set<Socket>();
  // In a list, not a Set: see threaded-list.ts.
  const answering = new ThreadedList<Answering>();
  let closing = false;
  server.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });
  server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
    const entry: Answering = { response, previous: undefined, next: undefined };
    answering.add(entry);
    // `on`, not `once` and its wrapper: a response closes once.
    response.on("close", () => answering.delete(entry));
    if (closing) lastOnItsConnection(response);
  });

  /**
   * Its answer tells the client that the connection closes after it (`Connection: close`, while
   * its headers are not sent), and the connection closes once the answer is out: Node's own
   * doing for such an answer, ours for one whose headers said keep-alive (a download under way).
   */
  function lastOnItsConnection(response: ServerResponse): void {
    if (!response.headersSent) response.setHeader("connection", "close");
    const socket = response.req.socket;
    response.once("close", () => {
      for (const other of answering) if (other.response.req.socket === socket) return;
      socket.destroySoon();
    });
  }

  return {
    close(deadlineMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // close() has closed the idle keep-alive connections. What is left is answering a request,
      // or receiving one, or has never received a byte: that one has nothing to finish.
      for (const { response } of answering) lastOnItsConnection(response);
      for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
      let deadline: NodeJS.Timeout | undefined;
      const cutAtDeadline = new Promise<number>((resolve) => {
        deadline = setTimeout(() => {
          const cut = connections.size;
          for (const socket of connections) socket.destroy();
          resolve(cut);
        }, deadlineMs);
      });
      return Promise.race([closed.then(() => 0), cutAtDeadline]).then(async (cut) => {
        clearTimeout(deadline);
        await closed;
        return { cut };
      });
    },
  };
}
