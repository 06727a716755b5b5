/**
 * A counting semaphore for webhook attempts, so a burst of due events cannot
 * open an unbounded number of outbound connections at once.
 */
export interface AttemptSlots {
  /** Waits for a free slot; resolves with its release, or undefined when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<(() => void) | undefined>;
}

export function createAttemptSlots(limit: number): AttemptSlots {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`maxConcurrency must be a positive integer`);
  let inUse = 0;
  const waiting: Array<() => void> = [];

  const release = (): void => {
    const next = waiting.shift();
    // Hand the slot straight to the next waiter; the count stays the same.
    if (next !== undefined) next();
    else inUse--;
  };

  return {
    acquire(signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      if (inUse < limit) {
        inUse++;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve) => {
        const grant = (): void => {
          signal.removeEventListener("abort", onAbort);
          resolve(once(release));
        };
        const onAbort = (): void => {
          const index = waiting.indexOf(grant);
          if (index !== -1) waiting.splice(index, 1);
          resolve(undefined);
        };
        waiting.push(grant);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
