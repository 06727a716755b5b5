/**
 * One SQLite connection serves the whole process, so everything that uses it
 * (the store's transactions and Kysely's own queries: migrations, the
 * clock's high-water mark) takes turns through this lock.
 */
export class ConnectionLock {
  #tail: Promise<void> = Promise.resolve();
  /** Holders and waiters: zero when the lock is free and nobody queues for it. */
  #users = 0;

  /** Resolves with a release function once every earlier holder has released. */
  acquire(): Promise<() => void> {
    const { released, release } = this.#enter();
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => released);
    return acquired;
  }

  /** The lock at once when it is free and nobody waits for it (its release function), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.#users > 0) return undefined;
    const { released, release } = this.#enter();
    this.#tail = released;
    return release;
  }

  #enter(): { released: Promise<void>; release: () => void } {
    this.#users++;
    let resolve!: () => void;
    const released = new Promise<void>((done) => {
      resolve = done;
    });
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      this.#users--;
      resolve();
    };
    return { released, release };
  }
}
