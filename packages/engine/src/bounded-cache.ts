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
  /** The values of the entries whose derivation has finished, for `settled`. */
  readonly #values = new Map<string, V>();
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
    value.then(
      (settled) => {
        if (this.#entries.get(key) === value) this.#values.set(key, settled);
      },
      () => this.#entries.delete(key),
    );
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) {
        this.#entries.delete(oldest);
        this.#values.delete(oldest);
      }
    }
    return value;
  }

  /**
   * The value for `key` if its derivation has finished, without waiting:
   * awaiting even a settled promise costs a turn of the microtask queue.
   */
  settled(key: string): { value: V } | undefined {
    return this.#values.has(key) ? { value: this.#values.get(key) as V } : undefined;
  }
}
