import { expect, it } from "vitest";
import type { Store } from "../../ports.js";
import { MINUTE, T0 } from "./fixtures.js";

/** Idempotency records. */
export function idempotency(current: () => Store): void {
  it("keeps one live idempotency record per account and key", async () => {
    const store = current();
    const record = {
      accountId: "acc-1",
      key: "k1",
      requestHash: "h1",
      state: "in_progress" as const,
      responseStatus: null,
      responseBody: null,
      createdAt: T0,
      expiresAt: T0 + 24 * 60 * MINUTE,
    };
    expect(await store.transaction((tx) => tx.insertIdempotency(record))).toBe(true);
    expect(await store.transaction((tx) => tx.insertIdempotency({ ...record, requestHash: "h2" }))).toBe(
      false,
    );
    await store.transaction((tx) => tx.completeIdempotency("acc-1", "k1", 200, '{"ok":true}'));
    expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "k1"))).toEqual({
      ...record,
      state: "done",
      responseStatus: 200,
      responseBody: '{"ok":true}',
    });
    // Once expired, the key is free again.
    const later = {
      ...record,
      requestHash: "h3",
      createdAt: record.expiresAt,
      expiresAt: record.expiresAt + MINUTE,
    };
    expect(await store.transaction((tx) => tx.insertIdempotency(later))).toBe(true);
    expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "k1"))).toEqual(later);
    await store.transaction((tx) => tx.deleteIdempotency("acc-1", "k1"));
    expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "k1"))).toBeUndefined();
    await store.transaction(async (tx) => {
      await tx.insertIdempotency({ ...record, key: "old", expiresAt: T0 + 1 });
      await tx.insertIdempotency({ ...record, key: "new", expiresAt: T0 + 3 });
    });
    expect(await store.transaction((tx) => tx.deleteExpiredIdempotency(T0 + 2))).toBe(1);
    expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "new"))).toBeDefined();
  });
}
