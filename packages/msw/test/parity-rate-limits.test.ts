/**
 * Parity of the real rate limiter (not a forced 429): a server and a mock
 * both limited to 2 creates a minute answer a burst of three with the same
 * statuses, bodies and RateLimit headers.
 */
import { type RunningServer, removeDataDir, startServer, TEST_API_KEY } from "@genvideo/server/testing";
import { setupServer } from "msw/node";
import { afterAll, expect, it } from "vitest";
import { createGenVideoMock } from "../src/index.js";
import { neutral } from "./parity/run-scenario.js";

let server: RunningServer | undefined;
afterAll(async () => {
  if (!server) return;
  expect(await server.stop()).toBe(0);
  removeDataDir(server.dataDir);
});

async function burst(baseUrl: string) {
  const answers = [];
  for (let call = 0; call < 3; call++) {
    const response = await fetch(`${baseUrl}/api/gen/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: `burst ${call}` }),
    });
    answers.push({
      status: response.status,
      body: neutral(await response.json(), new Map()),
      retryAfter: response.headers.get("retry-after"),
      policy: response.headers.get("ratelimit-policy"),
      limit: response.headers.get("ratelimit"),
    });
  }
  return answers;
}

it("limits creates like the reference server", async () => {
  server = await startServer({
    env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "creates=2,reads=1000" },
  });
  const reference = await burst(server.url);

  const mock = createGenVideoMock({
    apiKeys: [TEST_API_KEY],
    rateLimits: { createsPerMinute: 2, readsPerMinute: 1000 },
  });
  const msw = setupServer(...mock.handlers);
  msw.listen({ onUnhandledFrame: "error" });
  try {
    expect(await burst(mock.baseUrl)).toEqual(reference);
  } finally {
    msw.close();
  }
  expect(reference.map((answer) => answer.status)).toEqual([200, 200, 429]);
  expect(reference[2]).toMatchObject({ body: { code: "RATE_LIMITED" }, policy: '"create";q=2;w=60' });
}, 30_000);
