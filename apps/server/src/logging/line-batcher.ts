/**
 * The log's lines, handed to their destination by the chunk. pino's asynchronous destination
 * (sonic-boom) gives each write to a thread of libuv's pool: a thread woken, the pipe written, the
 * completion handed back to the event loop. Once per line, that cost a status read about as much
 * CPU as making its line. Gathered, a busy server writes one chunk per few hundred lines, and a
 * quiet one's line still goes out within `LOG_FLUSH_MS`.
 */
import type { DestinationStream } from "pino";

/** Where the chunks go: pino's destination (sonic-boom), or anything that takes strings. */
export interface ChunkTarget {
  write(chunk: string): unknown;
  flush?(callback?: (error?: Error) => void): void;
  flushSync?(): void;
}

/**
 * Characters gathered before they are handed over at once: a chunk of a few hundred request lines.
 * Each chunk is a write on the pool, its completion and its buffers; lines of a status read's
 * size written to a file cost 1.7-2.0 µs of CPU each in chunks of 4 KiB, 1.4-1.5 in 16 KiB and
 * 0.8-0.9 in 64 KiB. A busy server fills one in about 20 ms; a quiet one's wait is `LOG_FLUSH_MS`.
 */
export const LOG_CHUNK_CHARS = 64 * 1024;
/** How long a line waits for others at most: a line in a quiet log still shows "at once". */
export const LOG_FLUSH_MS = 100;

export class LineBatcher implements DestinationStream {
  readonly #target: ChunkTarget;
  #pending = "";
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(target: ChunkTarget) {
    this.#target = target;
  }

  write(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= LOG_CHUNK_CHARS) this.#handOver();
    else this.#timer ??= setTimeout(() => this.#handOver(), LOG_FLUSH_MS).unref();
  }

  /** pino's `logger.flush()`: what is gathered goes now, and the target flushes too. */
  flush(callback?: (error?: Error) => void): void {
    this.#handOver();
    if (this.#target.flush) this.#target.flush(callback);
    else callback?.();
  }

  /** At exit, with no event loop left: everything is written before this returns. */
  flushSync(): void {
    this.#handOver();
    this.#target.flushSync?.();
  }

  #handOver(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending === "") return;
    const chunk = this.#pending;
    this.#pending = "";
    this.#target.write(chunk);
  }
}
