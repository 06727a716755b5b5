import type { Clock } from "../clock.js";
import type { HeldLease } from "./lease-renewal.js";

/**
 * A held lease that aborts a signal the moment it runs out, moved by each
 * renewal (`leaseExpiresAt = ...`, as `renewHalfSpentLeases` does).
 *
 * What a holder does on the strength of a lease (a webhook request, a render)
 * takes `signal`, so it stops when the lease could have passed to another
 * worker, even when this process cannot reach the database to learn that it
 * did: cut off by a partition, its renewals hang, and nothing else would stop
 * a request waiting for a connection from going out whenever one frees.
 *
 * The timer is real time: the clock's `scale` turns the service-time expiry
 * into it. A clock moved by hand has no scale and so no timer; `check(now)`,
 * called on each tick, covers it (and any timer that fired late).
 */
export class LeaseDeadline implements HeldLease {
  readonly #clock: Clock;
  readonly #controller = new AbortController();
  #expiresAt: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(clock: Clock, leaseExpiresAt: number) {
    this.#clock = clock;
    this.#expiresAt = leaseExpiresAt;
    this.#arm();
  }

  get leaseExpiresAt(): number {
    return this.#expiresAt;
  }

  /** A renewal moves the end; a lease already run out stays run out (another worker may hold it). */
  set leaseExpiresAt(leaseExpiresAt: number) {
    if (this.#controller.signal.aborted) return;
    this.#expiresAt = leaseExpiresAt;
    this.#arm();
  }

  /** Aborted once the lease has run out, with a `LeaseExpiredError`. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the lease has run out by `now` (service time); aborts the signal if so. */
  check(now: number = this.#clock.now()): boolean {
    if (!this.#controller.signal.aborted && now >= this.#expiresAt) {
      this.dispose();
      this.#controller.abort(new LeaseExpiredError(this.#expiresAt));
    }
    return this.#controller.signal.aborted;
  }

  /** No more timer: the holder is done with the lease. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm() {
    this.dispose();
    const scale = this.#clock.scale;
    if (scale === undefined || this.check()) return;
    const realMs = Math.ceil((this.#expiresAt - this.#clock.now()) / scale);
    // Fired a hair early (rounding, a clock a millisecond behind): check re-arms for the rest.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.check()) this.#arm();
    }, realMs);
  }
}

/** The reason a lease's signal aborts: the lease ran out at `leaseExpiresAt` (service time). */
export class LeaseExpiredError extends Error {
  override readonly name = "LeaseExpiredError";
  readonly leaseExpiresAt: number;

  constructor(leaseExpiresAt: number) {
    super(`the lease ran out at ${new Date(leaseExpiresAt).toISOString()}`);
    this.leaseExpiresAt = leaseExpiresAt;
  }
}
