/**
 * The server's regular expressions that a client's input reaches (the engine's own are timed in
 * packages/engine/src/input-patterns.test.ts), each on its worst input at growing sizes, through a
 * started server over real HTTP where a request carries it (the dashboard's queries and paths,
 * `/docs`' Accept-Encoding, X-Forwarded-For behind a trusted proxy) and through the function that
 * applies it otherwise (a webhook receiver's answer, a request image at render time). The audit
 * table is in CONTRIBUTING.md ("Regular expressions on client input").
 */
import { describe, expect, it } from "vitest";
import { toFontText } from "../src/renderer/bitmap-font.js";
import { fitImage, InputImageError } from "../src/renderer/input-image.js";
import { excerptText } from "../src/webhooks/webhook-sender.js";
import { createTask } from "./support/api.js";
import { csrfTokenIn, postSignIn, printedSignInLink, sessionCookie } from "./support/dashboard.js";
import { FAST_SERVICE_ENV } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: { ...FAST_SERVICE_ENV, GENVIDEO_TRUSTED_PROXIES: "loopback" } });

const KIB = 1024;
/** Within Node's 16 KB request head, with room for the rest of it. */
const HEAD_SIZES = [KIB, 4 * KIB, 12 * KIB];
/** Up to a request image's most (13.3 MiB of base64) and beyond. */
const BODY_SIZES = [64 * KIB, 1024 * KIB, 16 * 1024 * KIB];
/** Up to 4x the 64 KiB of a webhook receiver's answer that is read. */
const RECEIVER_SIZES = [4 * KIB, 64 * KIB, 256 * KIB];

/**
 * 250 ms plus 1 ms per KiB, fastest of three tries: 100 to 1000 times what a linear pass takes,
 * and far less than a quadratic one takes at these sizes (a cubic one fails at the first).
 */
const budgetMs = (size: number) => 250 + size / KIB;

/** The fastest of three runs of `run`, in ms. */
async function fastestMs(run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let trial = 0; trial < 3; trial++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return Math.min(...times);
}

/** Times `check(input)` at each size; lists the sizes over budget (none, to pass). */
async function overBudget<T>(
  sizes: readonly number[],
  inputOf: (size: number) => T,
  check: (input: T) => Promise<void>,
): Promise<string[]> {
  const over: string[] = [];
  for (const size of sizes) {
    const input = inputOf(size);
    const ms = await fastestMs(() => check(input));
    if (ms >= budgetMs(size)) over.push(`${size} characters: ${Math.round(ms)} ms`);
  }
  return over;
}

let cookie: string;
async function dashboard(path: string): Promise<number> {
  cookie ??= sessionCookie(await postSignIn(server, printedSignInLink(server.output())));
  const response = await server.fetch(path, { headers: { cookie }, redirect: "manual" });
  await response.arrayBuffer();
  return response.status;
}

describe("patterns on what a request carries, over HTTP", () => {
  it.each([
    ["the task list's id search", (size: number) => `/dashboard/tasks?q=${"0".repeat(size)}x`, 200],
    [
      "the task list's dates",
      (size: number) => `/dashboard/tasks?from=2026-01-01T00:00${":00".repeat(size / 3)}`,
      200,
    ],
    ["the task list's cursor", (size: number) => `/dashboard/tasks?after=1_${"a".repeat(size)}!`, 200],
    ["the webhook list's cursor", (size: number) => `/dashboard/webhooks?after=${"1".repeat(size)}_`, 200],
    ["a task page's id", (size: number) => `/dashboard/tasks/${"0".repeat(size)}`, 404],
    ["a task image's id", (size: number) => `/dashboard/tasks/${"0-".repeat(size / 2)}/images/0`, 404],
  ])("the dashboard: %s", async (_, pathOf, status) => {
    const over = await overBudget(HEAD_SIZES, pathOf, async (path) => {
      expect(await dashboard(path)).toBe(status);
    });
    expect(over).toEqual([]);
  });

  it.each<[string, string, (size: number) => Record<string, string>]>([
    // A nonce out of its shape is not claimed: the key is made (and shown) as without one.
    [
      "a new key's form nonce",
      "/dashboard/keys",
      (size: number) => ({ expires: "1d", name: "k", _form: `${"0".repeat(size)}x` }),
    ],
    [
      "the receiver check's task id",
      "/dashboard/webhooks/check",
      (size: number) => ({ url: "https://example.com/hook", task: `${"0".repeat(size)}x` }),
    ],
  ])("the dashboard's forms: %s", async (_, path, formOf) => {
    await dashboard("/dashboard/tasks");
    const csrf = csrfTokenIn(await (await server.fetch("/dashboard/keys", { headers: { cookie } })).text());
    const over = await overBudget(HEAD_SIZES, formOf, async (form) => {
      const response = await server.fetch(path, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie,
          origin: new URL(server.url).origin,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ ...form, _csrf: csrf }),
      });
      await response.arrayBuffer();
      expect(response.status).toBe(303);
    });
    expect(over).toEqual([]);
  });

  it("the dashboard's prompt previews, of the longest prompts, runs of whitespace between words", async () => {
    for (const prompt of ["a \t ".repeat(500), ` ${"\u00a0".repeat(1998)}x`])
      await createTask(server, { prompt });
    const over = await overBudget(
      [0],
      () => "/dashboard/tasks",
      async (path) => {
        expect(await dashboard(path)).toBe(200);
      },
    );
    expect(over).toEqual([]);
  });

  it("/docs: Accept-Encoding", async () => {
    const over = await overBudget(
      HEAD_SIZES,
      (size) => `${"b".repeat(size / 2)}r, ${"gzi".repeat(size / 6)}`,
      async (encoding) => {
        const response = await server.fetch("/docs", { headers: { "accept-encoding": encoding } });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
      },
    );
    expect(over).toEqual([]);
  });

  it("X-Forwarded-For from a trusted proxy, read for the failed-authentication limit", async () => {
    const forwardedFor = [
      (size: number) => `${"1.".repeat(size / 2)}1`,
      (size: number) => `${"1:".repeat(size / 2)}x`,
      (size: number) => `${"203.0.113.7, ".repeat(size / 13)}x`,
      (size: number) => `::ffff:${"1".repeat(size)}`,
    ];
    for (const headerOf of forwardedFor) {
      const over = await overBudget(HEAD_SIZES, headerOf, async (header) => {
        const response = await server.fetch("/api/gen/account", {
          headers: { authorization: "Bearer not-a-key-not-a-key-00", "x-forwarded-for": header },
        });
        await response.arrayBuffer();
        expect([401, 429]).toContain(response.status);
      });
      expect(over).toEqual([]);
    }
  });
});

describe("patterns on what reaches the server otherwise", () => {
  it("a webhook receiver's answer, kept as an excerpt without control characters", async () => {
    const over = await overBudget(
      RECEIVER_SIZES,
      (size) => new TextEncoder().encode("\u0001a".repeat(size / 2)),
      async (bytes) => {
        expect(excerptText(bytes)).toBe("a".repeat(bytes.length / 2));
      },
    );
    expect(over).toEqual([]);
  });

  it("a prompt made caption text at render time", async () => {
    const over = await overBudget(
      HEAD_SIZES,
      (size) => "e\u0301\u2014 \t\u2026".repeat(size / 6),
      async (prompt) => {
        expect(toFontText(prompt)).toMatch(/^(e- \.\.\.)+$/);
      },
    );
    expect(over).toEqual([]);
  });

  it("a request image at render time: base64 that breaks at its end", async () => {
    const size = { width: 64, height: 36 };
    const over = await overBudget(
      BODY_SIZES,
      (length) => `data:image/png;base64,${"A".repeat(length)}!`,
      async (image) => {
        await expect(fitImage(image, size, "reference image 1")).rejects.toThrow(InputImageError);
      },
    );
    expect(over).toEqual([]);
  });
});
