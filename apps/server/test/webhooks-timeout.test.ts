/**
 * The per-attempt deadline through the real server: a receiver that accepts
 * the connection and never answers is abandoned when the deadline passes,
 * each abandoned attempt is recorded as a timeout, the next follows after the
 * retry spacing, and the fifth ends the event as `failed`. The contract's
 * deadline is 30 s of real time (it does not scale with GENVIDEO_TIME_SCALE);
 * GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS shortens it to 300 ms so that five
 * attempts fit in a test.
 */
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_SPACING_MS } from "@genvideo/schema";
import { beforeAll, expect, it } from "vitest";
import { createTask } from "./support/api.js";
import { startReceiver, type TestReceiver } from "./support/receivers.js";
import { FAST_SERVICE_ENV } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";
import { settledEvent, webhookEvents } from "./support/webhook-events.js";

const DEADLINE_MS = 300;
let silent: TestReceiver;
const server = useServer({
  env: { ...FAST_SERVICE_ENV, GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: String(DEADLINE_MS) },
  afterStop: () => silent?.close(),
});

beforeAll(async () => {
  silent = await startReceiver(() => {});
});

it("abandons a receiver that never answers at the deadline, retries, and fails the event after five", async () => {
  const taskId = await createTask(server, { prompt: "into the void", callback_url: `${silent.origin}/hook` });
  const event = await settledEvent(server, taskId);

  expect(event).toMatchObject({
    state: "failed",
    attempt_count: WEBHOOK_MAX_ATTEMPTS,
    next_attempt_at: null,
  });
  expect(event.attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.error])).toEqual(
    Array.from({ length: WEBHOOK_MAX_ATTEMPTS }, (_, index) => [index + 1, null, "timeout"]),
  );
  // Not before the deadline (timers may fire a millisecond early). The receiver never answers,
  // so only the deadline can have ended each attempt; how long after it depends on the machine.
  for (const attempt of event.attempts) expect(attempt.duration_ms).toBeGreaterThanOrEqual(DEADLINE_MS - 2);
  // Each next attempt came after the one before it ended, then the retry spacing (service time).
  const starts = event.attempts.map((attempt) => Date.parse(attempt.started_at));
  for (let index = 1; index < starts.length; index++)
    expect(starts[index]! - starts[index - 1]!).toBeGreaterThanOrEqual(WEBHOOK_RETRY_SPACING_MS);

  // The receiver got every attempt, each on a connection of its own (an abandoned one is closed).
  expect(silent.requests).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
  expect(silent.connections).toBe(WEBHOOK_MAX_ATTEMPTS);
  expect(new Set(silent.requests.map((request) => request.headers["webhook-id"]))).toEqual(
    new Set([event.id]),
  );

  // Ten retry spacings of service time later (600x), no sixth attempt.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(silent.requests).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
  expect((await webhookEvents(server, taskId))[0]).toMatchObject({
    state: "failed",
    attempt_count: WEBHOOK_MAX_ATTEMPTS,
  });
});
