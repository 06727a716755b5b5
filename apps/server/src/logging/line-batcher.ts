/**
 * The log's lines, handed to their destination by the chunk. pino's asynchronous destination
 * (sonic-boom) gives each write to a thread of libuv's pool: a thread woken, the pipe written, the
 * completion handed back to the event loop. Once per line, that cost a status read about as much
 * CPU as making its line. Gathered, a busy server writes one chunk per few hundred lines, and a
 * quiet one's line still goes out within `LOG_FLUSH_MS`.
 *
 * A chunk is gathered as bytes: each line is encoded once, straight into the chunk's buffer. Kept
 * as a string, a chunk was a string of a few hundred joined pieces that the destination then
 * flattened, measured and encoded again: handing a status read's line over cost 0.50-0.56 µs of
 * CPU that way, 0.34-0.37 µs this way.
 */
import type { DestinationStream } from "pino";

/** Where the chunks go: pino's destination (sonic-boom) in its `buffer` mode, or anything that takes bytes. */
export interface ChunkTarget {
  write(chunk: Buffer): unknown;
  flush?(callback?: (error?: Error) => void): void;
  flushSync?(): void;
}

/**
 * Bytes gathered before they are handed over at once: a chunk of a few hundred request lines.
 * Each chunk is a write on the pool, its completion and its buffers; lines of a status read's
 * size written to a file cost 1.7-2.0 µs of CPU each in chunks of 4 KiB, 1.4-1.5 in 16 KiB and
 * 0.8-0.9 in 64 KiB. A busy server fills one in about 20 ms; a quiet one's wait is `LOG_FLUSH_MS`.
 */
export const LOG_CHUNK_BYTES = 64 * 1024;
/** How long a line waits for others at most: a line in a quiet log still shows "at once". */
export const LOG_FLUSH_MS = 100;

/** UTF-8 takes at most 3 bytes for each UTF-16 unit of a string (a surrogate pair: 4 for 2). */
const MAX_BYTES_PER_UNIT = 3;

export class LineBatcher implements DestinationStream {
  readonly #target: ChunkTarget;
  #chunk = Buffer.allocUnsafe(LOG_CHUNK_BYTES);
  #used = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(target: ChunkTarget) {
    this.#target = target;
  }

  write(line: string): void {
    if (this.#used + line.length * MAX_BYTES_PER_UNIT > LOG_CHUNK_BYTES) {
      this.#handOver();
      // A line longer than a chunk goes out on its own.
      if (line.length * MAX_BYTES_PER_UNIT > LOG_CHUNK_BYTES) {
        this.#target.write(Buffer.from(line));
        return;
      }
    }
    this.#used += this.#chunk.write(line, this.#used);
    this.#timer ??= setTimeout(() => this.#handOver(), LOG_FLUSH_MS).unref();
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
    if (this.#used === 0) return;
    // The destination keeps the bytes until they are written: the next chunk is a new buffer.
    const chunk = this.#chunk.subarray(0, this.#used);
    this.#chunk = Buffer.allocUnsafe(LOG_CHUNK_BYTES);
    this.#used = 0;
    this.#target.write(chunk);
  }
}
