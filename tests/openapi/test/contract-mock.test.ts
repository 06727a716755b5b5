/**
 * The contract checker (written from docs/api.md, apart from the schemas) over the msw mock's real
 * answers, driven as a customer's suite drives it: every task state, delivered, pending and failed
 * webhook events, the video download and the API's errors. No rule is broken.
 */
import { setupGenVideoMock } from "@genvideo/msw/vitest";
import { type LoopbackServer, serveOnLoopback } from "@genvideo/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkExchange } from "./contract/check.js";
import { driveMock, type RecordedExchange } from "./support/mock-drive.js";

// Webhook attempts leave msw for two loopback receivers: one takes them, one is down.
const mock = setupGenVideoMock({
  baseUrl: "https://api.genvideo.test",
  rateLimits: false,
  allowInsecureCallbacks: true,
  onUnhandledFrame: "bypass",
});
let receivers: LoopbackServer[];
let exchanges: RecordedExchange[];

beforeAll(async () => {
  receivers = await Promise.all([
    serveOnLoopback((_, response) => response.writeHead(204).end()),
    serveOnLoopback((_, response) => response.writeHead(503).end("down for maintenance")),
  ]);
  const [ok, down] = receivers.map((receiver) => `${receiver.origin}/hooks`) as [string, string];
  exchanges = await driveMock(mock, { ok, down });
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

it("drives the mock through every task state and webhook delivery state", () => {
  // No queue in the mock: a task is processing from its creation on.
  const seen = new Set<string>();
  for (const { answer } of exchanges) {
    const body =
      typeof answer.body === "string" && answer.body.startsWith("{") ? JSON.parse(answer.body) : {};
    if (body.status) seen.add(body.status);
    for (const event of body.events ?? []) seen.add(`event ${event.state}`);
  }
  expect([...seen].sort()).toEqual(
    ["completed", "event delivered", "event failed", "event pending", "failed", "processing"].sort(),
  );
});

it("the msw mock breaks no rule of docs/api.md in any answer", () => {
  expect(exchanges.length).toBeGreaterThan(50);
  const violations = exchanges.flatMap(({ request, answer }) =>
    checkExchange(request, answer).map(
      (violation) =>
        `${request.method} ${request.path} (${answer.status}): ${violation.rule}: ${violation.detail}`,
    ),
  );
  expect(violations).toEqual([]);
});
