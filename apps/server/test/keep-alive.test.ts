/**
 * Idle keep-alive connections outlive the pools of clients and proxies (docs/operating.md,
 * "Connections"), so that a pool always closes a connection before the server does: a request
 * sent on a connection the server was closing at that moment failed with ECONNRESET.
 */
import { Agent, get, type IncomingHttpHeaders } from "node:http";
import { expect, it } from "vitest";
import { useServer } from "./support/use-server.js";

const server = useServer();

function healthz(agent: Agent): Promise<{ status: number; headers: IncomingHttpHeaders; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const request = get(new URL("/healthz", server.url), { agent }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          reused: request.reusedSocket,
        }),
      );
    });
    request.on("error", reject);
  });
}

it("keeps an idle connection 75 s and says so to the client's pool", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await healthz(agent);
    const second = await healthz(agent);
    for (const answer of [first, second]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe("keep-alive");
      // What undici and other pools read to close the connection before the server does.
      expect(answer.headers["keep-alive"]).toBe("timeout=75");
    }
    expect([first.reused, second.reused]).toEqual([false, true]);
  } finally {
    agent.destroy();
  }
});
