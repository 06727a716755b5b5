/**
 * Failed sign-in attempts per client address: after `MAX_FAILURES` within a
 * minute the address is refused (429) until the minute is over. Tokens carry
 * 256 random bits, so this is about noise and log spam more than guessing.
 */
const WINDOW_MS = 60_000;
const MAX_FAILURES = 10;
const MAX_TRACKED = 10_000;

export class SignInLimiter {
  readonly #now: () => number;
  readonly #failures = new Map<string, { windowStart: number; count: number }>();

  constructor(now: () => number) {
    this.#now = now;
  }

  allow(client: string): boolean {
    const entry = this.#failures.get(client);
    if (!entry) return true;
    if (this.#now() - entry.windowStart >= WINDOW_MS) {
      this.#failures.delete(client);
      return true;
    }
    return entry.count < MAX_FAILURES;
  }

  fail(client: string): void {
    const now = this.#now();
    const entry = this.#failures.get(client);
    if (!entry || now - entry.windowStart >= WINDOW_MS) {
      if (this.#failures.size >= MAX_TRACKED) this.#failures.delete(this.#failures.keys().next().value!);
      this.#failures.set(client, { windowStart: now, count: 1 });
    } else entry.count++;
  }
}
