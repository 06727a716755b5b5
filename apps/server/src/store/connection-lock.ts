/**
 * One SQLite connection serves the whole process, so everything that uses it
 * (the store's transactions and Kysely's own queries: migrations, the
 * clock's high-water mark) takes turns through this lock.
 */
export class ConnectionLock {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves with a release function once every earlier holder has released. */
  acquire(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => released);
    return acquired;
  }
}
