/**
 * Mocks that a third-party generator makes from the served document (orval: msw handlers with
 * faker data), judged by the contract checker over 300 answers per JSON endpoint. Every rule that
 * JSON Schema can state holds in every generated answer, but for two that the generator does not
 * follow and the document states all the same.
 */

import { startServer } from "@genvideo/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CONTRACT_RULES, type ContractRuleName } from "./contract/rules.js";
import { type MockSample, sampleGeneratedMocks } from "./support/generated-mocks.js";
import { startDocumentedServer } from "./support/served-document.js";

/** Rules the document states that orval's mocks do not follow, and why. */
const GENERATOR_GAPS: Partial<Record<ContractRuleName, string>> = {
  "request-id-header": "orval's mock handlers send no response headers",
  "delivered-has-success": "orval ignores `contains` when it fills an array",
};

let document: Record<string, any>;
let sample: MockSample;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  const { served } = await startDocumentedServer(
    () => startServer({ env: { GENVIDEO_RENDERER: "fixture" } }),
    cleanups,
  );
  document = served.document;
  sample = await sampleGeneratedMocks(served.path, 300);
}, 300_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it("breaks no rule JSON Schema can state, but those the generator does not follow", () => {
  expect(sample.answers).toBe(1500);
  const broken = Object.entries(sample.violations).filter(
    ([rule]) => CONTRACT_RULES[rule as ContractRuleName].expressible && !(rule in GENERATOR_GAPS),
  );
  expect(
    broken.map(([rule, count]) => `${rule}: ${count}, e.g. ${sample.examples[rule as ContractRuleName]}`),
  ).toEqual([]);
});

it("breaks the rules no schema can state, which the checker sees", () => {
  // Random ids and times: the answer's task_id is not the one asked for, updated_at may come first.
  expect(sample.violations["task-id-asked"]).toBe(600);
  expect(sample.violations["created-before-updated"]).toBeGreaterThan(0);
});

it("states in the document the rules the generator does not follow", () => {
  const statusAnswer = document.paths["/api/gen/status/{task_id}"].get.responses["200"];
  expect(statusAnswer.headers["X-Request-Id"]).toEqual({ $ref: "#/components/headers/RequestId" });
  expect(document.components.headers.RequestId.required).toBe(true);
  expect(document.components.schemas.DeliveredWebhookEvent.properties.attempts.contains).toEqual({
    $ref: "#/components/schemas/SucceededWebhookAttempt",
  });
  for (const rule of Object.keys(GENERATOR_GAPS))
    expect(sample.violations[rule as ContractRuleName]).toBeGreaterThan(0);
});
