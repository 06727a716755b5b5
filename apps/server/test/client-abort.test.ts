/**
 * A client that gives up on a create mid-body (short of its Content-Length,
 * or with chunked framing the parser refuses) is not a server error: the
 * request is logged at info with status 499 and `clientAborted`, no error
 * line, no 5xx.
 */
import { connect } from "node:net";
import { expect, it } from "vitest";
import { eventually, FAST_SERVICE_ENV, TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: FAST_SERVICE_ENV });

const HEAD = `POST /api/gen/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\n`;

/**
 * Sends the head with `Expect: 100-continue`, so the server answers "100
 * Continue" once it has parsed it and started on the request; then part of a
 * body, then drops the connection.
 */
function abandon(head: string, partialBody: string, requestId: string): Promise<void> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(`${head}X-Request-Id: ${requestId}\r\nExpect: 100-continue\r\n\r\n`);
    });
    socket.once("data", (chunk) => {
      expect(chunk.toString("latin1")).toMatch(/^HTTP\/1\.1 100 Continue/);
      socket.end(partialBody, () => socket.destroy());
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
  });
}

function requestLine(requestId: string) {
  return server.logRecords().find((record) => record.msg === "request" && record.requestId === requestId);
}

it.each([
  ["a body short of its Content-Length", `${HEAD}Content-Length: 200\r\n`, `{"prompt":"half`],
  ["broken chunked encoding", `${HEAD}Transfer-Encoding: chunked\r\n`, `5\r\n{"pro\r\nZZ\r\nnot a chunk\r\n`],
])("logs %s as a client abort: status 499 at info, no error line", async (_case, head, partialBody) => {
  const requestId = `abort-${Math.random().toString(36).slice(2)}`;
  await abandon(head, partialBody, requestId);
  const line = await eventually(async () => requestLine(requestId), 10_000, "the request's log line");
  expect(line).toMatchObject({ level: "info", status: 499, clientAborted: true, path: "/api/gen/generate" });
  const records = server.logRecords();
  expect(records.filter((record) => record.level === "error" || record.level === "fatal")).toEqual([]);
  expect(records.filter((record) => typeof record.status === "number" && record.status >= 500)).toEqual([]);
});

it("still creates the task when the body arrives whole", async () => {
  const response = await server.api("/api/gen/generate", { json: { prompt: "whole" } });
  expect(response.status).toBe(200);
});
