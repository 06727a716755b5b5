/**
 * Clients that send a whole request and then close their sending side
 * (`socket.end()`) still get their answer. Node's HTTP server would otherwise
 * take the FIN for the end of the connection: the create ran (and charged)
 * but its response went to nobody. See `answerHalfClosedConnections`.
 */
import { connect } from "node:net";
import { expect, it } from "vitest";
import { credits } from "./support/api.js";
import { TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

// Service time at the wall clock's pace: the credits counted below must be the creates' charges
// only. At 600x a task's 10-minute deadline is one real second, which 200 creates on a busy
// machine overrun, and each task that times out is refunded before the count.
const server = useServer({ env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "off" } });

/** Sends `request` in one write with the FIN right behind it; resolves with everything read until close. */
function sendAndHalfClose(request: string): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(Number(port), "127.0.0.1", () => socket.end(request));
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

it("answers every create whose client half-closes after sending it", async () => {
  const body = JSON.stringify({ prompt: "half-closed" });
  const request =
    `POST /api/gen/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const before = await credits(server);
  const answers: string[] = [];
  // 200 connections, 10 at a time.
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let index = 0; index < 20; index++) answers.push(await sendAndHalfClose(request));
    }),
  );
  const statuses = answers.map((answer) => /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? "no answer");
  expect(statuses.filter((status) => status !== "200")).toEqual([]);
  expect(answers.every((answer) => answer.includes('"message":"Task created"'))).toBe(true);
  // Every task charged was answered: 200 creates at 1 credit each.
  expect(before - (await credits(server))).toBe(200);
});

it("answers a GET whose client half-closes, and closes the connection after it", async () => {
  const answer = await sendAndHalfClose(
    `GET /api/gen/account HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n\r\n`,
  );
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  expect(answer).toContain('"credits"');
});
