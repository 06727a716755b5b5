/**
 * Service time. The engine never reads `Date.now()` itself: the server passes a
 * clock that may run faster than wall time (`GENVIDEO_TIME_SCALE`), the mock a
 * virtual one that tests move by hand.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, in service time. */
  now(): number;
  /**
   * Service milliseconds that pass per real millisecond, for a clock that runs
   * by itself (`systemClock`, the server's); absent for one moved by hand. It
   * turns a service time into a real timer: a lease's end, for instance.
   */
  readonly scale?: number;
}

/**
 * Wall time, optionally sped up: `scale` service milliseconds pass per real
 * millisecond, counted from `epoch`.
 *
 * @example
 * const clock = systemClock(60); // a minute of service time per real second
 */
export function systemClock(scale = 1, epoch: number = Date.now()): Clock {
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new RangeError(`time scale must be a positive number, got ${scale}`);
  return { scale, now: () => epoch + (Date.now() - epoch) * scale };
}

/** A clock that only moves when told to: for tests and the msw mock. */
export interface ManualClock extends Clock {
  /** Moves service time forward by `milliseconds` (never backward). */
  advance(milliseconds: number): number;
  /** Jumps to an absolute time, which must not be in the past. */
  set(epochMilliseconds: number): void;
}

/**
 * A clock that starts at `start` (default 2026-01-01T00:00:00Z) and moves only
 * through `advance` or `set`.
 *
 * @example
 * const clock = manualClock();
 * clock.advance(10 * 60_000); // ten minutes later, at once
 */
export function manualClock(start: number = Date.UTC(2026, 0, 1)): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance(milliseconds) {
      if (!(milliseconds >= 0)) throw new RangeError(`cannot advance the clock by ${milliseconds} ms`);
      current += milliseconds;
      return current;
    },
    set(epochMilliseconds) {
      if (epochMilliseconds < current) throw new RangeError("the clock never moves backward");
      current = epochMilliseconds;
    },
  };
}
