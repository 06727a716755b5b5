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
 *
 * The signal and its timer are made when `signal` is first asked for: a
 * worker holds thousands of tasks that need no render (a backlog of scenario
 * failures, each held for its generation time), and for those `check` alone
 * says when the lease ran out. An abort controller and a timer each, kept for
 * a minute, cost a stream of creates 10 µs of garbage collection per create.
 */
export class LeaseDeadline implements HeldLease {
  readonly #clock: Clock;
  readonly #onRunOut: (() => void) | undefined;
  #controller: AbortController | undefined;
  #ranOut = false;
  #expiresAt: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `onRunOut` is called once, when the lease is found run out (by its timer or by `check`). */
  constructor(clock: Clock, leaseExpiresAt: number, onRunOut?: () => void) {
    this.#clock = clock;
    this.#expiresAt = leaseExpiresAt;
    this.#onRunOut = onRunOut;
  }

  get leaseExpiresAt(): number {
    return this.#expiresAt;
  }

  /** A renewal moves the end; a lease already run out stays run out (another worker may hold it). */
  set leaseExpiresAt(leaseExpiresAt: number) {
    if (this.#ranOut) return;
    this.#expiresAt = leaseExpiresAt;
    if (this.#controller) this.#arm();
  }

  /** Aborted once the lease has run out, with a `LeaseExpiredError`; watched by a timer from the first ask. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#ranOut) this.#controller.abort(new LeaseExpiredError(this.#expiresAt));
      else this.#arm();
    }
    return this.#controller.signal;
  }

  /** Whether the lease has run out by `now` (service time); aborts the signal if so. */
  check(now: number = this.#clock.now()): boolean {
    if (!this.#ranOut && now >= this.#expiresAt) {
      this.#ranOut = true;
      this.dispose();
      this.#controller?.abort(new LeaseExpiredError(this.#expiresAt));
      this.#onRunOut?.();
    }
    return this.#ranOut;
  }

  /**
   * Aborts the signal for a reason of the holder's own (it drains, or the task ended elsewhere):
   * what runs on the strength of the lease stops as it would if the lease ran out, so that work
   * needs no signal of its own (a second controller and `AbortSignal.any` per render cost a busy
   * worker about 30 µs each). The lease itself is left as it is, and no timer watches it any more.
   */
  abort(reason: Error): void {
    this.dispose();
    this.#controller ??= new AbortController();
    this.#controller.abort(reason);
  }

  /** No more timer: the holder is done with the lease. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm() {
    this.dispose();
    if (this.#controller?.signal.aborted) return;
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
