/**
 * A body at least this large is worked on in passes, with the event loop let in between: every
 * pass over a body at the limit (counting its values, decoding, parsing, validating, storing) takes
 * 50 to 500 ms, and run back to back they kept every other request, `/healthz` included, waiting
 * for over a second.
 */
export const LARGE_BODY_BYTES: number = 1024 * 1024;

type Immediate = (callback: () => void) => unknown;

/**
 * Resolves after the event loop has run what waits (I/O first: other requests' sockets), with
 * `setImmediate` where the runtime has it and a zero timer elsewhere (browsers).
 */
export function nextEventLoopTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: Immediate }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
