/// <reference types="node" />
/**
 * Mocks that a third-party generator makes from an OpenAPI document, as a customer would make them:
 * orval's msw handlers with faker data. `sampleGeneratedMocks` serves them with msw, sends each JSON
 * endpoint of the document `perEndpoint` requests and judges every answer with the contract checker.
 */
import { join } from "node:path";
import { setupServer } from "msw/node";
import { checkExchange } from "../contract/check.js";
import type { ContractRuleName } from "../contract/rules.js";
import { runTool, scratchDirectory } from "./tools.js";

const MOCK_BASE = "http://generated-mock.test";

/** One request per JSON endpoint of the document; the task ids are fresh UUIDs. */
const ENDPOINTS: { method: string; path: () => string; body?: unknown }[] = [
  { method: "POST", path: () => "/api/gen/generate", body: { prompt: "A red fox" } },
  { method: "GET", path: () => `/api/gen/status/${crypto.randomUUID()}` },
  { method: "GET", path: () => "/api/gen/account" },
  { method: "GET", path: () => `/api/gen/tasks/${crypto.randomUUID()}/webhooks` },
  { method: "POST", path: () => `/api/gen/tasks/${crypto.randomUUID()}/webhooks/redeliver` },
];

export interface MockSample {
  /** Answers judged. */
  answers: number;
  /** Answers breaking each rule (an answer counts once per rule). */
  violations: Partial<Record<ContractRuleName, number>>;
  /** One example per rule, to show what went wrong. */
  examples: Partial<Record<ContractRuleName, string>>;
}

/** Generates orval's msw mocks from the document at `documentPath` and samples their answers. */
export async function sampleGeneratedMocks(documentPath: string, perEndpoint: number): Promise<MockSample> {
  const scratch = scratchDirectory("orval");
  try {
    const config = scratch.write(
      "orval.config.mjs",
      `export default { genvideo: { input: { target: ${JSON.stringify(documentPath)} }, output: ${JSON.stringify(
        {
          target: join(scratch.path, "genvideo.ts"),
          client: "fetch",
          mode: "single",
          mock: true,
        },
      )} } };`,
    );
    const generated = await runTool("orval", ["--config", config]);
    if (generated.code !== 0) throw new Error(`orval failed:\n${generated.stdout}\n${generated.stderr}`);
    const mocks = (await import(join(scratch.path, "genvideo.msw.ts"))) as Record<string, unknown>;
    const handlers = Object.values(mocks).find(
      (value): value is () => Parameters<typeof setupServer> =>
        typeof value === "function" && value.name.endsWith("APIMock"),
    );
    if (!handlers) throw new Error(`orval made no handler list: ${Object.keys(mocks).join(", ")}`);
    const msw = setupServer(...handlers());
    msw.listen({ onUnhandledFrame: "error" });
    try {
      return await sample(perEndpoint);
    } finally {
      msw.close();
    }
  } finally {
    scratch.remove();
  }
}

async function sample(perEndpoint: number): Promise<MockSample> {
  const result: MockSample = { answers: 0, violations: {}, examples: {} };
  for (const endpoint of ENDPOINTS) {
    for (let index = 0; index < perEndpoint; index++) {
      const path = endpoint.path();
      const response = await fetch(new URL(path, MOCK_BASE), {
        method: endpoint.method,
        headers: { authorization: "Bearer gen_sk_generated", "content-type": "application/json" },
        ...(endpoint.body ? { body: JSON.stringify(endpoint.body) } : {}),
      });
      const body = await response.text();
      result.answers++;
      const broken = new Set<ContractRuleName>();
      for (const violation of checkExchange(
        { method: endpoint.method, path },
        { status: response.status, headers: response.headers, body },
      )) {
        if (broken.has(violation.rule)) continue;
        broken.add(violation.rule);
        result.violations[violation.rule] = (result.violations[violation.rule] ?? 0) + 1;
        result.examples[violation.rule] ??= `${endpoint.method} ${path}: ${violation.detail}`;
      }
    }
  }
  return result;
}
