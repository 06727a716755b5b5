/**
 * Headers a client controls without a credential, at their worst, through a
 * started server over real HTTP: each is answered promptly and the event loop
 * stays free for everyone else (`/healthz` meanwhile).
 */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { completedTask } from "./support/api.js";
import { FAST_SERVICE_ENV } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: FAST_SERVICE_ENV });

/** Node refuses a request head longer than this (431) by default: the most a header can carry. */
const NODE_HEADER_LIMIT = 16 * 1024;
/** Generous on a busy machine; the cubic Range pattern took 35 s for the 9 KB header, minutes at 16 KB. */
const PROMPT_MS = 5_000;

interface Answer {
  /** 0 when no answer came (`error` says why). */
  status: number;
  bytes: number;
  ms: number;
  error?: string;
}

/**
 * A GET with exactly these headers (node:http adds only Host and Connection), timed to its
 * last byte; given up after a while, so that a blocked server fails the test rather than hangs it.
 */
function get(url: string, headers: Record<string, string>): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const failed = (error: Error) =>
      resolve({ status: 0, bytes: 0, ms: performance.now() - started, error: error.message });
    const outgoing = request(url, { headers, signal: AbortSignal.timeout(4 * PROMPT_MS) }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode!, bytes, ms: performance.now() - started }),
      );
      response.on("error", failed);
    });
    outgoing.on("error", failed);
    outgoing.end();
  });
}

/** `bytes=` + spaces + `-` + spaces + `x`, `length` characters: the shape that made the old pattern backtrack. */
function spacedRange(length: number): string {
  const spaces = length - "bytes=-x".length;
  const before = Math.floor(spaces / 3);
  return `bytes=${" ".repeat(before)}-${" ".repeat(spaces - before)}x`;
}

describe("a hostile Range header on a video URL", () => {
  it.each([
    ["9 KB", 9_000],
    // The rest of the request head (request line with its signed query, Host, Connection) fits in 1 KB.
    ["Node's 16 KB header limit", NODE_HEADER_LIMIT - 1_024],
  ])("at %s is answered promptly with the whole video, /healthz unblocked meanwhile", async (_, length) => {
    const { videoUrl } = await completedTask(server, "a video to range over");
    const whole = await get(videoUrl, {});
    expect(whole.status).toBe(200);

    const range = spacedRange(length);
    expect(range.length).toBe(length);
    // Several at once, then /healthz: before the fix any one of them held the event loop for minutes.
    const hostile = Promise.all([1, 2, 3].map(() => get(videoUrl, { Range: range })));
    const health = await get(`${server.url}/healthz`, {});
    expect(health.status, health.error).toBe(200);
    expect(health.ms, "/healthz while hostile Range headers are parsed").toBeLessThan(PROMPT_MS);
    for (const answer of await hostile) {
      expect(answer).toMatchObject({ status: 200, bytes: whole.bytes });
      expect(answer.ms, "the hostile request's answer").toBeLessThan(PROMPT_MS);
    }
  });

  it("still answers single, open-ended and suffix ranges with 206, and past the end with 416", async () => {
    const { videoUrl } = await completedTask(server, "a video to range over, politely");
    const size = (await get(videoUrl, {})).bytes;
    expect(await get(videoUrl, { Range: "bytes=0-7" })).toMatchObject({ status: 206, bytes: 8 });
    expect(await get(videoUrl, { Range: "bytes=8-" })).toMatchObject({ status: 206, bytes: size - 8 });
    expect(await get(videoUrl, { Range: "bytes=-16" })).toMatchObject({ status: 206, bytes: 16 });
    expect(await get(videoUrl, { Range: `bytes=${size}-` })).toMatchObject({ status: 416 });
  });
});
