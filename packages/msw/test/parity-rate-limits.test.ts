/**
 * Parity of the real rate limiter (not a forced 429): a server and a mock
 * both limited to 2 creates a minute answer a burst of three with the same
 * statuses, bodies and RateLimit headers. The headers' seconds count down in real time on
 * both, so they are compared to within the time a burst took, not to the digit.
 */
import { type RunningServer, removeDataDir, startServer, TEST_API_KEY } from "@genvideo/server/testing";
import { setupServer } from "msw/node";
import { afterAll, expect, it } from "vitest";
import { createGenVideoMock } from "../src/index.js";
import { neutral } from "./parity/run-case.js";

let server: RunningServer | undefined;
afterAll(async () => {
  if (!server) return;
  expect(await server.stop()).toBe(0);
  removeDataDir(server.dataDir);
});

/** The seconds a RateLimit header or Retry-After carries, and the header with them blanked. */
function seconds(header: string | null): { shape: string | null; values: number[] } {
  if (header === null) return { shape: null, values: [] };
  const values = [...header.matchAll(/(?<=t=|^)\d+/g)].map(([digits]) => Number(digits));
  return { shape: header.replace(/(?<=t=|^)\d+/g, "N"), values };
}

/**
 * Three creates in a row. Besides the answers, how long the burst took: the seconds in the
 * headers count down from the first create, so two bursts agree on them to within that.
 */
async function burst(baseUrl: string) {
  const answers = [];
  const started = performance.now();
  for (let call = 0; call < 3; call++) {
    const response = await fetch(`${baseUrl}/api/gen/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: `burst ${call}` }),
    });
    answers.push({
      status: response.status,
      body: neutral(await response.json(), new Map()),
      retryAfter: seconds(response.headers.get("retry-after")),
      policy: response.headers.get("ratelimit-policy"),
      limit: seconds(response.headers.get("ratelimit")),
    });
  }
  return { answers, elapsedMs: performance.now() - started };
}

type Burst = Awaited<ReturnType<typeof burst>>;

/** The same answers, seconds aside; the seconds apart by no more than the slower burst lasted. */
function expectSameAnswers(mock: Burst, reference: Burst) {
  const shapes = (run: Burst) =>
    run.answers.map(({ retryAfter, limit, ...rest }) => ({
      ...rest,
      retryAfter: retryAfter.shape,
      limit: limit.shape,
    }));
  expect(shapes(mock)).toEqual(shapes(reference));
  const slack = Math.ceil(Math.max(mock.elapsedMs, reference.elapsedMs) / 1000);
  const values = (run: Burst) =>
    run.answers.flatMap(({ retryAfter, limit }) => [...retryAfter.values, ...limit.values]);
  const [mine, theirs] = [values(mock), values(reference)];
  expect(mine).toHaveLength(theirs.length);
  const apart = mine.map((value, index) => Math.abs(value - (theirs[index] ?? Number.NaN)));
  expect(Math.max(0, ...apart)).toBeLessThanOrEqual(slack);
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
    expectSameAnswers(await burst(mock.baseUrl), reference);
  } finally {
    msw.close();
  }
  expect(reference.answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
  expect(reference.answers[2]).toMatchObject({
    body: { code: "RATE_LIMITED" },
    policy: '"create";q=2;w=60',
    limit: { shape: '"create";r=0;t=N' },
    retryAfter: { shape: "N" },
  });
}, 30_000);
