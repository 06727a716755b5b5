/**
 * A small memo for derivations of pure functions (a key's hash, an imported
 * HMAC key). Web Crypto answers on a later turn of the event loop; answering
 * repeat requests from memory keeps the engine quick and keeps it moving under
 * fake timers, where every real event-loop turn is precious. The oldest entry
 * goes first once `capacity` is reached, so a flood of random keys costs speed,
 * never memory.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, Promise<V>>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The cached value for `key`, or `derive()`'s (a rejection is not kept). */
  get(key: string, derive: () => Promise<V>): Promise<V> {
    const cached = this.#entries.get(key);
    if (cached) return cached;
    const value = derive();
    this.#entries.set(key, value);
    value.catch(() => this.#entries.delete(key));
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return value;
  }
}
