import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runProcess } from "../testing/process.js";
import { LineBatcher, LOG_CHUNK_BYTES, LOG_FLUSH_MS } from "./line-batcher.js";

/** Records each chunk as its text (a copy: the batcher's buffers are the destination's from then on). */
function recordingTarget() {
  const chunks: string[] = [];
  const target = {
    chunks,
    write: (chunk: Buffer) => void chunks.push(chunk.toString("utf8")),
    flush: vi.fn((callback?: (error?: Error) => void) => callback?.()),
    flushSync: vi.fn(),
  };
  return target;
}

const line = (n: number) => `${JSON.stringify({ msg: "request", n })}\n`;

describe("LineBatcher", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("hands a quiet log's lines over together, within LOG_FLUSH_MS of the first", () => {
    const target = recordingTarget();
    const batcher = new LineBatcher(target);
    batcher.write(line(1));
    vi.advanceTimersByTime(LOG_FLUSH_MS / 2);
    batcher.write(line(2));
    expect(target.chunks).toEqual([]);
    vi.advanceTimersByTime(LOG_FLUSH_MS / 2);
    expect(target.chunks).toEqual([line(1) + line(2)]);
    // Nothing gathered, nothing written and no timer left behind.
    vi.advanceTimersByTime(10 * LOG_FLUSH_MS);
    expect(target.chunks).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("hands a busy log's lines over by the chunk, whole and in order", () => {
    const target = recordingTarget();
    const batcher = new LineBatcher(target);
    const lines = Array.from({ length: 10_000 }, (_, n) => line(n));
    for (const text of lines) batcher.write(text);
    // Several chunks were written before any timer ran, each ending on a whole line, each nearly full.
    expect(target.chunks.length).toBeGreaterThan(1);
    for (const chunk of target.chunks) {
      expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(LOG_CHUNK_BYTES);
      expect(Buffer.byteLength(chunk)).toBeGreaterThan(LOG_CHUNK_BYTES - 3 * line(10_000).length);
      expect(chunk.endsWith("\n")).toBe(true);
    }
    vi.advanceTimersByTime(LOG_FLUSH_MS);
    expect(target.chunks.join("")).toBe(lines.join(""));
  });

  it("keeps every character of lines beyond ASCII, and a line longer than a chunk whole", () => {
    const target = recordingTarget();
    const batcher = new LineBatcher(target);
    const lines = Array.from(
      { length: 2_000 },
      (_, n) => `${JSON.stringify({ msg: "prompt", text: `été 🎬 ${n}` })}\n`,
    );
    const long = `${JSON.stringify({ msg: "long", text: "é".repeat(LOG_CHUNK_BYTES) })}\n`;
    for (const text of lines.slice(0, 1_000)) batcher.write(text);
    batcher.write(long);
    for (const text of lines.slice(1_000)) batcher.write(text);
    batcher.flushSync();
    expect(target.chunks).toContain(long);
    expect(target.chunks.join("")).toBe([...lines.slice(0, 1_000), long, ...lines.slice(1_000)].join(""));
  });

  it("writes what it gathered on flush() and flushSync(), then flushes the target", () => {
    const target = recordingTarget();
    const batcher = new LineBatcher(target);
    batcher.write(line(1));
    const flushed = vi.fn();
    batcher.flush(flushed);
    expect(target.chunks).toEqual([line(1)]);
    expect(flushed).toHaveBeenCalledOnce();
    batcher.write(line(2));
    batcher.flushSync();
    expect(target.chunks).toEqual([line(1), line(2)]);
    expect(target.flushSync).toHaveBeenCalledOnce();
  });
});

describe("the server's logger on stdout", () => {
  const logger = fileURLToPath(new URL("./logger.ts", import.meta.url));
  const hooks = fileURLToPath(new URL("../testing/source-hooks.mjs", import.meta.url));
  const run = (program: string) =>
    runProcess(process.execPath, ["--import", hooks, "--input-type=module", "-e", program], {
      env: { ...process.env },
    });

  it("writes the lines gathered when the process exits right after them", async () => {
    const result = await run(
      `const { createLogger } = await import(${JSON.stringify(logger)});
       const log = createLogger("info");
       for (let n = 0; n < 3; n++) log.info({ n }, "last words");
       process.exit(3);`,
    );
    expect(result.code).toBe(3);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text));
    expect(lines.map((entry) => [entry.msg, entry.n])).toEqual([
      ["last words", 0],
      ["last words", 1],
      ["last words", 2],
    ]);
  });

  it("writes a quiet process's line while it runs on", async () => {
    // Killed (no exit handler runs) long after LOG_FLUSH_MS: the line went out without an exit.
    const result = await run(
      `const { createLogger } = await import(${JSON.stringify(logger)});
       createLogger("info").info("alone");
       setTimeout(() => process.kill(process.pid, "SIGKILL"), ${LOG_FLUSH_MS * 20});`,
    );
    expect(result.stdout).toContain('"msg":"alone"');
  });
});
