import type { CallerKeyRecord, Store } from "../ports.js";

/**
 * How fresh "last used" is kept: a key already recorded as used within this
 * much service time is not noted again. Together with the batched flush, a
 * key busy at any rate costs at most one write per this interval.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records when API keys were last used without a write per request: uses are
 * noted in memory and written in one transaction per flush (the engine
 * flushes on each tick), only when the stored time is older than the
 * resolution. A crash loses at most the uses since the last flush.
 */
export class KeyUsageRecorder {
  readonly #pending = new Map<string, number>();

  /** Notes a use of `key` (as just read from the store) at `now`. */
  note(key: CallerKeyRecord, now: number): void {
    if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    const noted = this.#pending.get(key.id);
    if (noted === undefined || now > noted) this.#pending.set(key.id, now);
  }

  /** Writes what was noted; returns how many keys it updated. */
  async flush(store: Store): Promise<number> {
    if (this.#pending.size === 0) return 0;
    const batch = [...this.#pending];
    this.#pending.clear();
    try {
      await store.transaction(async (tx) => {
        for (const [id, at] of batch) await tx.updateApiKey(id, { lastUsedAt: at });
      });
    } catch (error) {
      // Kept for the next flush, unless a newer use replaced it meanwhile.
      for (const [id, at] of batch) if (!this.#pending.has(id)) this.#pending.set(id, at);
      throw error;
    }
    return batch.length;
  }
}
