import type { Clock } from "@genvideo/engine";

/**
 * Service time for the mock. It moves when a test says so (`advance`), and,
 * with a `scale`, also follows `Date.now()`: so `vi.advanceTimersByTime()`
 * under fake timers, or plain waiting, moves it too. It never reads a timer
 * and never schedules one, so fake timers can't make it hang.
 */
export class MockServiceClock implements Clock {
  readonly #start: number;
  readonly #scale: number;
  readonly #realStart: number;
  #advanced = 0;

  constructor(start: number, scale: number) {
    if (!(scale >= 0) || !Number.isFinite(scale))
      throw new RangeError(`timing.scale must be zero or a positive number, got ${scale}`);
    this.#start = start;
    this.#scale = scale;
    this.#realStart = Date.now();
  }

  now(): number {
    const flowing = this.#scale === 0 ? 0 : Math.max(0, Date.now() - this.#realStart) * this.#scale;
    return Math.floor(this.#start + this.#advanced + flowing);
  }

  advance(milliseconds: number): void {
    this.#advanced += milliseconds;
  }
}
