/**
 * Parity: the same table of cases against the reference server over real
 * HTTP (spawned from its sources, as its own tests do) and against the mock
 * through msw. Status codes, content types and bodies must be identical,
 * ids, times and video URL hosts and signatures aside.
 */
import {
  eventually,
  type RunningServer,
  removeDataDir,
  runCli,
  startServer,
  TEST_API_KEY,
  TEST_WEBHOOK_SECRET,
} from "@genvideo/server/testing";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGenVideoMock } from "../src/index.js";
import { PARITY_CASES } from "./parity/cases.js";
import { type Exchange, type ParityTarget, runParityCase } from "./parity/run-case.js";

const TIME_SCALE = 600;
let server: RunningServer;
const transcripts = { server: new Map<string, Exchange[]>(), mock: new Map<string, Exchange[]>() };

/** Runs one CLI command against the server's data directory; resolves with its stdout. */
async function cli(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli(args, server.dataDir);
  if (code !== 0) throw new Error(`genvideo-server ${args.join(" ")} exited ${code}: ${stderr}`);
  return stdout;
}

async function serverTarget(): Promise<ParityTarget> {
  server = await startServer({
    env: {
      GENVIDEO_RENDERER: "fixture",
      GENVIDEO_RATE_LIMITS: "off",
      GENVIDEO_TIME_SCALE: String(TIME_SCALE),
    },
  });
  await cli(["accounts", "create", "poor", "--credits", "1"]);
  const printed = await cli(["keys", "create", "--account", "poor"]);
  const poor = printed
    .split("\n")
    .find((line) => /^gen_sk_\w+$/.test(line.trim()))
    ?.trim();
  if (!poor) throw new Error(`keys create printed no key:\n${printed}`);
  return {
    fetch: (path, init) => fetch(new URL(path, server.url), init),
    async finish(taskId) {
      await eventually(
        async () => {
          const response = await fetch(new URL(`/api/gen/status/${taskId}`, server.url), {
            headers: { authorization: `Bearer ${TEST_API_KEY}` },
          });
          const { status } = (await response.json()) as { status: string };
          return status === "completed" || status === "failed" ? status : undefined;
        },
        15_000,
        `task ${taskId} to end on the server`,
      );
    },
    keys: { default: TEST_API_KEY, poor },
  };
}

async function mockTarget(): Promise<{ target: ParityTarget; close(): void }> {
  const mock = createGenVideoMock({
    baseUrl: "https://api.genvideo.test",
    apiKeys: [TEST_API_KEY],
    webhookSecret: TEST_WEBHOOK_SECRET,
    rateLimits: false,
    // The table's callback host is unreachable here; the server's attempts fail in the background too.
    webhookDelivery: "record",
  });
  const msw = setupServer(...mock.handlers);
  msw.listen({ onUnhandledFrame: "error" });
  await mock.reset();
  const { account } = await mock.engine.admin.createAccount("poor", 1);
  const { key } = await mock.engine.admin.createApiKey(account.id);
  return {
    target: {
      fetch: (path, init) => fetch(`${mock.baseUrl}${path}`, init),
      finish: async () => {
        await mock.clock.advance("10m");
      },
      keys: { default: TEST_API_KEY, poor: key },
    },
    close: () => msw.close(),
  };
}

beforeAll(async () => {
  const reference = await serverTarget();
  for (const parityCase of PARITY_CASES)
    transcripts.server.set(parityCase.name, await runParityCase(reference, parityCase));
  const { target, close } = await mockTarget();
  try {
    for (const parityCase of PARITY_CASES)
      transcripts.mock.set(parityCase.name, await runParityCase(target, parityCase));
  } finally {
    close();
  }
}, 120_000);

afterAll(async () => {
  if (!server) return;
  expect(await server.stop()).toBe(0);
  removeDataDir(server.dataDir);
});

/** A transcript with the insecure-callbacks hint cut, the one sentence each host says its own way. */
function inOwnTerms(transcript: unknown): unknown {
  return JSON.parse(
    JSON.stringify(transcript).replace(/; for local development, [^"]*/g, "; for local development, …"),
  );
}

describe(`the mock answers like the reference server (${PARITY_CASES.length} cases)`, () => {
  it.each(PARITY_CASES.map((parityCase) => [parityCase.name]))("%s", (name) => {
    const reference = transcripts.server.get(name)!;
    expect(reference.length).toBeGreaterThan(0);
    expect(inOwnTerms(transcripts.mock.get(name))).toEqual(inOwnTerms(reference));
  });

  it("says how to allow insecure callbacks in its own terms: the server its setting, the mock its option", () => {
    const said = (side: "server" | "mock") =>
      JSON.stringify(transcripts[side].get("rejects an http callback"));
    expect(said("server")).toContain("start the server with GENVIDEO_ALLOW_INSECURE_CALLBACKS=1");
    expect(said("mock")).toContain("create the mock with allowInsecureCallbacks: true");
    expect(said("mock")).not.toContain("GENVIDEO_ALLOW_INSECURE_CALLBACKS");
  });

  it("covers every rejection code and terminal state it claims to", () => {
    const seen = new Set<string>();
    for (const exchanges of transcripts.server.values())
      for (const { status, body } of exchanges) {
        const record = body as { code?: string; status?: string; message?: string };
        seen.add(String(status));
        if (record.code) seen.add(record.code);
        if (record.status === "failed") seen.add(`failed:${record.message}`);
        if (record.status === "completed") seen.add("completed");
      }
    for (const expected of [
      "200",
      "400",
      "401",
      "402",
      "403",
      "404",
      "415",
      "422",
      "INVALID_REQUEST",
      "INVALID_CALLBACK_URL",
      "INSUFFICIENT_CREDITS",
      "NOT_FOUND",
      "UNSUPPORTED_MEDIA_TYPE",
      "IDEMPOTENCY_KEY_REUSED",
      "INVALID_SIGNATURE",
      "completed",
      "failed:UNSAFE_CONTENT",
      "failed:GENERATION_FAILED",
      "failed:TIMEOUT",
    ])
      expect(seen, expected).toContain(expected);
  });
});
