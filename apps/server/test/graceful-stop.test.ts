/**
 * A graceful stop (SIGTERM) ends promptly whatever its clients hold open (docs/operating.md,
 * "Connections"): a connection that never sent a byte (a browser's preconnect, or undici's after
 * it dropped an abandoned download) is closed at once, a request in flight is answered with
 * `Connection: close`, and what is still busy after the drain is closed then. Before, each of
 * these held the stop until the client let go: 73 s for undici, forever for a raw socket.
 */
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { expect, it } from "vitest";
import type { RunningServer } from "./support/server-process.js";
import { serverSet } from "./support/use-server.js";

const servers = serverSet();

/** Far above a prompt stop and the 5 s drain, far below a keep-alive (75 s): a hung stop fails here. */
const STOP_BOUND_MS = 30_000;

/** The server's exit code, or a failure naming the hang once `STOP_BOUND_MS` has passed. */
async function stopWithin(server: RunningServer): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the graceful stop still runs after ${STOP_BOUND_MS / 1000} s`)),
      STOP_BOUND_MS,
    );
  });
  try {
    return await Promise.race([server.stop(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the server has logged a record with this message. */
function logged(server: RunningServer, message: string): Promise<void> {
  const seen = () => server.logRecords().some((record) => record.msg === message);
  return new Promise((resolve) => {
    if (seen()) return resolve();
    const check = () => {
      if (!seen()) return;
      server.child.stdout?.off("data", check);
      resolve();
    };
    server.child.stdout?.on("data", check);
  });
}

interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server has closed the connection, with everything it sent. */
  closed: Promise<string>;
}

async function rawConnection(server: RunningServer): Promise<RawConnection> {
  const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
  let received = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => (received += chunk));
  const closed = once(socket, "close").then(() => received);
  await once(socket, "connect");
  return { socket, received: () => received, closed };
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n";

/**
 * Sends a whole request and the first lines of the next in one write, and resolves with the
 * first answer: the server read both together, so from then on the connection is receiving a
 * request (neither idle nor unused).
 */
async function answerOneBeginAnother(client: RawConnection): Promise<string> {
  client.socket.write(`${healthz}\r\n${healthz}`);
  await new Promise<void>((resolve) => {
    const answered = () => {
      // The end of the chunked answer.
      if (!client.received().endsWith("\r\n0\r\n\r\n")) return;
      client.socket.off("data", answered);
      resolve();
    };
    client.socket.on("data", answered);
  });
  return client.received();
}

const cutWarning = "requests still in flight at the end of the drain: their connections were closed";

it("closes a connection that never sent a byte at once, and exits 0", async () => {
  const server = await servers.start();
  const silent = await rawConnection(server);
  // The server accepts in order: once a later connection is answered, it holds the silent one too.
  expect(await (await server.fetch("/healthz")).json()).toEqual({ status: "ok" });

  expect(await stopWithin(server)).toBe(0);
  expect(await silent.closed).toBe("");
  // Closed as unused, not cut at the end of the drain.
  expect(server.logRecords().map((record) => record.msg)).not.toContain(cutWarning);
});

it("answers a request that arrives during the drain, says its connection closes, then closes it", async () => {
  const server = await servers.start();
  const client = await rawConnection(server);
  const first = await answerOneBeginAnother(client);
  expect(first).toMatch(/^HTTP\/1\.1 200 /);
  expect(first.toLowerCase()).toContain("connection: keep-alive");

  const stopped = stopWithin(server);
  await logged(server, "shutting down");
  client.socket.write("\r\n");
  const second = (await client.closed).slice(first.length);
  expect(second).toMatch(/^HTTP\/1\.1 200 /);
  expect(second.toLowerCase()).toContain("connection: close");
  expect(second).toContain('{"status":"ok"}');
  expect(await stopped).toBe(0);
  expect(server.logRecords().map((record) => record.msg)).not.toContain(cutWarning);
});

it("closes a connection still receiving its request when the drain ends, and says so", async () => {
  const server = await servers.start();
  const client = await rawConnection(server);
  const first = await answerOneBeginAnother(client);

  // The second request never completes: after close(), Node no longer enforces headersTimeout.
  expect(await stopWithin(server)).toBe(0);
  expect(await client.closed).toBe(first);
  const warning = server.logRecords().find((record) => record.msg === cutWarning);
  expect(warning).toMatchObject({ level: "warn", connections: 1, drainMs: 5000 });
});
