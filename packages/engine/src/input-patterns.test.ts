/**
 * Every regular expression of the engine (and of the schema it validates with) that a client's
 * input reaches, timed on its worst input through the route or function that applies it: headers,
 * paths, query strings, body fields. A backtracking pattern is found here as a size at which
 * the time leaves the linear budget: the old Range pattern took seconds on 1 KB. The audit table,
 * with the measured times, is in CONTRIBUTING.md ("Regular expressions on client input").
 */
import { describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../test/support/harness.js";
import { ipVersion } from "./callback-url/ip-address.js";
import { parseDuration } from "./duration.js";
import { tinyMp4Bytes } from "./video/tiny-mp4.js";
import { serveVideoDownload, videoFromBytes } from "./video/video-download.js";
import { VideoUrlSigner } from "./video/video-url-signer.js";

const KIB = 1024;
/** Up to 4x the most Node lets a request head carry (16 KB): a header, a path, a query. */
const HEADER_SIZES = [KIB, 4 * KIB, 16 * KIB, 64 * KIB];
/** Up to a base64 image just under the 10 MiB decoded limit (13.3 MiB of text). */
const BODY_SIZES = [64 * KIB, 1024 * KIB, 13 * 1024 * KIB];

/**
 * The most a linear pass may take: 250 ms plus 1 ms per KiB, fastest of three tries (the try least
 * disturbed by a busy machine). Linear patterns take 1 to 10 ns a character, 100 to 1000 times
 * under it; a quadratic one takes seconds at 64 KiB, a cubic one at 1 KiB, and fails.
 */
const budgetMs = (size: number) => 250 + size / KIB;

/** Runs `attempt` on `inputOf(size)` for each size, growing, and fails at the first over budget. */
async function expectLinear<T>(
  sizes: readonly number[],
  inputOf: (size: number) => T,
  attempt: (input: T) => Promise<void> | void,
): Promise<void> {
  for (const size of sizes) {
    const input = inputOf(size);
    let fastest = Number.POSITIVE_INFINITY;
    for (let trial = 0; trial < 3; trial++) {
      const started = performance.now();
      await attempt(input);
      fastest = Math.min(fastest, performance.now() - started);
    }
    expect(fastest, `${size} characters`).toBeLessThan(budgetMs(size));
  }
}

const TASK = "3f6c2a1e-8b4d-4c5a-9e7f-0a1b2c3d4e5f";
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const signer = new VideoUrlSigner({ publicUrl: "https://api.test", signingKey: "secret" });
const SIGNED = (await signer.signedUrl(TASK, NOW)).replace("https://api.test/videos/", "");

let harness: Harness;
const create = (body: unknown, headers: Record<string, string> = {}) =>
  harness.call("POST", "/api/gen/generate", {
    rawBody: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

/** A 400 whose issue names `path`. */
async function expectRefused(response: Response, path: string): Promise<void> {
  expect(response.status).toBe(400);
  const body = (await response.json()) as { issues?: { path: string }[] };
  expect(body.issues?.map((issue) => issue.path)).toContain(path);
}

describe("patterns on headers, paths and queries", () => {
  it("Content-Type: spaces, then anything but ; or the end", async () => {
    harness = await createHarness();
    await expectLinear(
      HEADER_SIZES,
      (size) => `application/json${" ".repeat(size)}x`,
      async (type) => {
        const response = await create({ prompt: "x" }, { "content-type": type });
        expect(response.status).toBe(415);
      },
    );
  });

  it("Content-Length: digits, then a letter", async () => {
    harness = await createHarness();
    await expectLinear(
      HEADER_SIZES,
      (size) => `${"0".repeat(size)}x`,
      async (length) => {
        const response = await create({ prompt: "x" }, { "content-length": length });
        expect(response.status).toBe(200);
      },
    );
  });

  it.each([
    ["spaces around two tokens", (size: number) => `Bearer ${" ".repeat(size)}x${" ".repeat(size)}y`],
    ["a long token, spaces, a letter", (size: number) => `Bearer ${"a".repeat(size)}${" ".repeat(size)}x`],
    ["a key's alphabet, far too long", (size: number) => `Bearer gen_sk_${"A".repeat(size)}`],
  ])("Authorization: %s", async (_, headerOf) => {
    harness = await createHarness();
    await expectLinear(HEADER_SIZES, headerOf, async (authorization) => {
      const response = await harness.call("GET", "/api/gen/account", { headers: { authorization } });
      expect(response.status).toBe(401);
    });
  });

  it("X-Request-Id and Idempotency-Key: their alphabet, then one character out of it", async () => {
    harness = await createHarness();
    await expectLinear(
      HEADER_SIZES,
      (size) => `${"a".repeat(size)}!`,
      async (id) => {
        const answer = await harness.call("GET", "/api/gen/account", { headers: { "x-request-id": id } });
        expect(answer.headers.get("x-request-id")).toMatch(/^req_/);
        const response = await create({ prompt: "x" }, { "idempotency-key": id });
        expect(response.status).toBe(400);
      },
    );
  });

  it.each([
    ["a status path with a long id", (size: number) => `/api/gen/status/${"0".repeat(size)}`, 400],
    ["a status path, then a slash", (size: number) => `/api/gen/status/${"a".repeat(size)}/`, 404],
    ["an unknown path", (size: number) => `/api/gen/${"x/".repeat(size / 2)}`, 404],
  ])("paths: %s", async (_, pathOf, status) => {
    harness = await createHarness();
    await expectLinear(HEADER_SIZES, pathOf, async (path) => {
      const response = await harness.call("GET", path);
      expect(response.status).toBe(status);
    });
  });

  it.each([
    ["the file name", (size: number) => [`${"a".repeat(size)}.mp4x`, {}, 403]],
    ["expires", (size: number) => [`${TASK}.mp4?expires=1${"0".repeat(size)}x&signature=x`, {}, 403]],
    ["Range", (size: number) => [SIGNED, { range: `bytes=${" ".repeat(size)}-${" ".repeat(size)}x` }, 200]],
    ["If-None-Match", (size: number) => [SIGNED, { "if-none-match": `${"W/".repeat(size / 2)}x` }, 200]],
    [
      "If-Range",
      (size: number) => [SIGNED, { range: "bytes=0-1", "if-range": `W/${"W/".repeat(size / 2)}` }, 200],
    ],
  ] as const)("a video download: %s", async (_, requestOf) => {
    const bytes = tinyMp4Bytes();
    await expectLinear(HEADER_SIZES, requestOf, async ([path, headers, status]) => {
      const request = new Request(`https://api.test/videos/${path}`, { headers });
      const response = await serveVideoDownload(request, new URL(request.url).pathname.split("/").pop()!, {
        check: (taskId, expires, signature) => signer.check(taskId, expires, signature, NOW),
        open: async () => ({ ...videoFromBytes(bytes, '"v1"'), modifiedAt: NOW, close: async () => {} }),
        now: NOW,
      });
      await response.arrayBuffer();
      expect(response.status).toBe(status);
    });
  });
});

describe("patterns on body fields", () => {
  it.each([
    ["base64 that breaks at its end", (size: number) => `data:image/png;base64,${"A".repeat(size)}!`],
    ["a data URL header of parameters", (size: number) => `data:${";".repeat(size)},AAAA`],
    [
      "a data URL header of long parameters",
      (size: number) => `data:image/png${";a=b".repeat(size / 4)},AAAA`,
    ],
  ])("a reference image: %s", async (_, imageOf) => {
    harness = await createHarness();
    await expectLinear(BODY_SIZES, imageOf, async (image) => {
      await expectRefused(await create({ prompt: "x", reference_images: [image] }), "reference_images.0");
    });
  });

  it("start_frame: base64 that breaks at its end", async () => {
    harness = await createHarness();
    await expectLinear(
      BODY_SIZES,
      (size) => `data:image/png;base64,${"A".repeat(size)}!`,
      async (image) => expectRefused(await create({ prompt: "x", start_frame: image }), "start_frame"),
    );
  });

  it("the prompt's surrogate check, on a prompt as long as the body", async () => {
    harness = await createHarness();
    await expectLinear(
      BODY_SIZES,
      (size) => `${"x".repeat(size)}\u{1F3AC}`,
      async (prompt) => {
        await expectRefused(await create({ prompt }), "prompt");
      },
    );
  });

  it("the prompt's markers ([[delay:...]], [[fail:...]], unsafe words), on prompts of the most allowed", async () => {
    harness = await createHarness({ unsafeWords: ["forbidden words"] });
    const prompts: ((size: number) => string)[] = [
      (size) => "[[delay:".repeat(size / 8),
      (size) => `[[delay:${"1.".repeat(size / 2 - 6)}]]`,
      (size) => "[[fail:".repeat(size / 7),
      (size) => "forbidden ".repeat(size / 10),
    ];
    for (const promptOf of prompts) {
      await expectLinear(
        [500, 2000],
        (size) => promptOf(size).slice(0, size),
        async (prompt) => {
          expect([200, 400]).toContain((await create({ prompt })).status);
        },
      );
    }
    await expectLinear(
      HEADER_SIZES,
      (size) => `${"1.".repeat(size / 2)}5x`,
      (text) => {
        expect(() => parseDuration(text)).toThrow();
      },
    );
  });

  it("callback_url: its host told apart as IPv4, IPv6 or a name", async () => {
    harness = await createHarness();
    const hosts: ((size: number) => string)[] = [
      (size) => `${"1.".repeat(size / 2)}x`,
      (size) => `${"1:".repeat(size / 2)}x`,
      (size) => `1:1:1:1:1:1:1:1%${"a".repeat(size)}!`,
      (size) => `::${"ffff:".repeat(size / 5)}1.1.1.x`,
    ];
    for (const hostOf of hosts) {
      await expectLinear(HEADER_SIZES, hostOf, (host) => {
        expect(ipVersion(host)).toBe(0);
      });
      await expectLinear([500, 2000], hostOf, async (host) => {
        // Created or refused (a name here resolves nowhere): the point is the time, and no 500.
        const response = await create({ prompt: "x", callback_url: `https://${host}/hook` });
        expect([200, 400]).toContain(response.status);
      });
    }
  });
});
