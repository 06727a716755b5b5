/**
 * The contract checker (written from docs/api.md, apart from the schemas) over the reference
 * server's real answers, driven through everything it answers: no rule is broken.
 */
import { TEST_API_KEY } from "@genvideo/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkExchange } from "./contract/check.js";
import { type DriveResult, driveEverything, startDrivenServer } from "./support/exchanges.js";
import type { RecordedExchange } from "./support/mock-drive.js";
import { startDocumentedServer } from "./support/served-document.js";

const cleanups: (() => unknown)[] = [];
let driven: DriveResult;

/** Answers past the document's operations: other methods and paths, under /api and /videos. */
let offDocument: RecordedExchange[];

beforeAll(async () => {
  const { server } = await startDocumentedServer(startDrivenServer, cleanups);
  driven = await driveEverything(server, server.url);
  const video = driven.exchanges.find((exchange) => exchange.name === "video");
  if (!video) throw new Error("the drive downloaded no video");
  offDocument = [];
  for (const [method, path, key] of [
    ["DELETE", video.path, false],
    ["GET", "/videos/", false],
    ["GET", `/videos/..%2Fsecret.mp4?${video.path.split("?")[1]}`, false],
    ["GET", "/api/gen/generate", true],
    ["GET", "/api/gen/nowhere", true],
  ] as const) {
    const response = await fetch(new URL(path, server.url), {
      method,
      headers: key ? { authorization: `Bearer ${TEST_API_KEY}` } : {},
    });
    offDocument.push({
      request: { method, path },
      answer: { status: response.status, headers: response.headers, body: await response.text() },
    });
  }
}, 180_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it("the reference server breaks no rule of docs/api.md in any answer", () => {
  expect(driven.exchanges.length).toBeGreaterThan(80);
  const violations = driven.exchanges.flatMap((exchange) =>
    checkExchange(exchange, exchange).map(
      (violation) => `${exchange.name} (${exchange.status}): ${violation.rule}: ${violation.detail}`,
    ),
  );
  expect(violations).toEqual([]);
});

it("nor in its answers to other methods and paths", () => {
  expect(offDocument.map(({ answer }) => answer.status)).toEqual([405, 404, 403, 405, 404]);
  const violations = offDocument.flatMap(({ request, answer }) =>
    checkExchange(request, answer).map(
      (violation) => `${request.method} ${request.path}: ${violation.rule}: ${violation.detail}`,
    ),
  );
  expect(violations).toEqual([]);
});
