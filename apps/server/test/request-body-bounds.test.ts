/**
 * Create bodies at the documented size limit, through a started server over real HTTP: the
 * largest valid request is taken, and hostile bodies of that size get a small 400 promptly,
 * with the server's peak memory (VmHWM) watched. Before the bounds, one 64 MiB body of
 * `[0,0,...]` reference images killed the process (heap out of memory).
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import {
  IMAGE_MAX_BYTES,
  PROMPT_MAX_LENGTH,
  REFERENCE_IMAGES_MAX_COUNT,
  REQUEST_BODY_MAX_BYTES,
  REQUEST_BODY_MAX_VALUES,
  VALIDATION_ISSUES_MAX_COUNT,
} from "@genvideo/schema";
import { dataUri, jpegBytes } from "@genvideo/schema/testing";
import { describe, expect, it } from "vitest";
import { FAST_SERVICE_ENV, TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: FAST_SERVICE_ENV });

const MEBIBYTE = 1024 * 1024;
const LIMIT = REQUEST_BODY_MAX_BYTES;
/**
 * How far the server's peak resident memory may rise over a run of bodies at the limit: a few
 * copies of the body (the bytes, the text, the parsed strings) and then some. Before, one such
 * body took the process past its 4 GiB heap.
 */
const PEAK_GROWTH_BOUND = 768 * MEBIBYTE;
/** Generous on a busy machine; reading and parsing 54 MiB takes about a second here. */
const PROMPT_MS = 30_000;

/**
 * The longest a /healthz may wait behind the largest valid create. Its passes over the body took
 * 1 to 7 s in one block on a busy machine (no request answered meanwhile); with the event loop let
 * in between them, the longest wait there was 1.2 to 2.1 s (about 0.4 s on an idle one).
 */
const HEALTHZ_WAIT_MS = 5_000;

/** Asks /healthz over and over until stopped; `waits` are the times each answer took, in ms. */
function pollHealthz(): { stop: () => void; waits: Promise<number[]> } {
  let stopped = false;
  const waits = (async () => {
    const times: number[] = [];
    while (!stopped) {
      const started = performance.now();
      const response = await server.fetch("/healthz");
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      times.push(performance.now() - started);
    }
    return times;
  })();
  return { stop: () => (stopped = true), waits };
}

/** The server's peak resident set so far (VmHWM), in bytes. */
function peakResidentBytes(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  const kibibytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kibibytes === undefined) throw new Error("no VmHWM in /proc/<pid>/status");
  return Number(kibibytes) * 1024;
}

/** `start`, `unit` as many times as fit, spaces for the rest, then `end`: exactly `size` bytes of ASCII. */
function padded(start: string, unit: string, end: string, size: number): string {
  const room = size - start.length - end.length;
  const units = Math.floor(room / unit.length);
  return start + unit.repeat(units) + " ".repeat(room - units * unit.length) + end;
}

interface Answer {
  status: number;
  text: string;
  ms: number;
}

/**
 * A create on a connection of its own (a pooled one may have been closed by the server as idle
 * while a large body was built, and a POST is not retried), timed to the answer's last byte.
 * With `declaredLength` alone, only the head is sent: the server refuses a length over the limit
 * by the header, and a client still writing a body it will not read may see a reset first.
 */
function create(body: string | { declaredLength: number }): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(`${server.url}/api/gen/generate`, {
      method: "POST",
      agent: false,
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        "content-type": "application/json",
        ...(typeof body === "string" ? {} : { "content-length": String(body.declaredLength) }),
      },
    });
    outgoing.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => {
        resolve({ status: response.statusCode!, text, ms: performance.now() - started });
        outgoing.destroy();
      });
    });
    outgoing.on("error", reject);
    if (typeof body === "string") outgoing.end(body);
    else outgoing.flushHeaders();
  });
}

/** JSON text made exactly the limit's size with trailing whitespace. */
const atTheLimit = (json: string) => json + " ".repeat(LIMIT - Buffer.byteLength(json));
/** `count` items, together about the limit's size. */
const filling = (count: number, item: (index: number, length: number) => string) =>
  Array.from({ length: count }, (_, index) => item(index, Math.floor(LIMIT / count) - 40)).join(",");

const HOSTILE_AT_THE_LIMIT: [string, () => string, RegExp][] = [
  [
    "reference images of zeros",
    () => padded('{"prompt":"x","reference_images":[0', ",0", "]}", LIMIT),
    /more than 10000 values/,
  ],
  ["unknown fields", () => padded('{"prompt":"x"', ',"f":0', "}", LIMIT), /more than 10000 values/],
  ["empty objects", () => padded("[{}", ",{}", "]", LIMIT), /more than 10000 values/],
  [
    // With the prompt, one value short of the most allowed: each long image is refused by the count.
    "as many reference images as values allowed, each long",
    () =>
      atTheLimit(
        `{"prompt":"x","reference_images":[${filling(REQUEST_BODY_MAX_VALUES - 2, (_, length) => `"data:image/png;base64,${"A".repeat(length)}"`)}]}`,
      ),
    /reference_images holds 9998 images/,
  ],
  [
    "as many unknown fields as values allowed, with long names",
    () =>
      atTheLimit(
        `{"prompt":"x",${filling(REQUEST_BODY_MAX_VALUES - 1, (index, length) => `"${index}${"k".repeat(length)}":0`)}}`,
      ),
    /issues lists the first 20/,
  ],
  ["one long prompt", () => padded('{"prompt":"', "x", '"}', LIMIT), /prompt is \d+ characters long/],
];

describe("create bodies at the size limit", () => {
  it.each(HOSTILE_AT_THE_LIMIT)("%s: a small 400 promptly, memory bounded", async (_, bodyOf, message) => {
    const body = bodyOf();
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const before = peakResidentBytes();
    const answer = await create(body);
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    const json = JSON.parse(answer.text) as { issues?: unknown[] };
    expect(json).toMatchObject({
      success: false,
      code: "INVALID_REQUEST",
      message: expect.stringMatching(message),
    });
    expect(answer.text.length, "the answer's size").toBeLessThan(32 * 1024);
    expect(json.issues?.length ?? 0).toBeLessThanOrEqual(VALIDATION_ISSUES_MAX_COUNT);
    expect(answer.ms).toBeLessThan(PROMPT_MS);
    expect(peakResidentBytes() - before, "growth of the server's peak resident memory").toBeLessThan(
      PEAK_GROWTH_BOUND,
    );
    expect((await server.fetch("/healthz")).status).toBe(200);
  });

  it("takes the largest valid request, and refuses one byte over the limit with 413", {
    timeout: 180_000,
  }, async () => {
    const jpeg = new Uint8Array(IMAGE_MAX_BYTES);
    jpeg.set(jpegBytes(1280, 720));
    const images = Array.from({ length: REFERENCE_IMAGES_MAX_COUNT }, () => dataUri("image/jpeg", jpeg));
    // The longest prompt at its most bytes: each character a surrogate pair, escaped.
    const prompt = "\\ud83c\\udfac".repeat(PROMPT_MAX_LENGTH);
    const largest = `{"prompt":"${prompt}","model_type":"gen-3-fast","aspect_ratio":"16:9","reference_images":${JSON.stringify(images)}}`;
    // The limit is what this request needs, with some room for whitespace: no more.
    expect(Buffer.byteLength(largest)).toBeLessThanOrEqual(LIMIT);
    expect(LIMIT - Buffer.byteLength(largest)).toBeLessThan(MEBIBYTE);
    const before = peakResidentBytes();
    const polling = pollHealthz();
    const created = await create(largest).finally(() => polling.stop());
    expect(created.status, created.text).toBe(200);
    // The create's passes over 53 MiB let other requests in between: /healthz kept being answered.
    const waits = await polling.waits;
    expect(waits.length).toBeGreaterThan(1);
    expect(Math.max(...waits), "the longest /healthz wait during the create").toBeLessThan(HEALTHZ_WAIT_MS);
    expect(JSON.parse(created.text)).toMatchObject({ success: true, message: "Task created" });
    expect(peakResidentBytes() - before).toBeLessThan(PEAK_GROWTH_BOUND);

    const over = await create({ declaredLength: LIMIT + 1 });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: "The request body is larger than 54 MiB.",
    });
  });
});
