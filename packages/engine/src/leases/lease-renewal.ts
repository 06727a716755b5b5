import type { Store, StoreTransaction } from "../ports.js";

/** A lease this process holds on a row: when it runs out, as last written. */
export interface HeldLease {
  leaseExpiresAt: number;
}

/**
 * Renews, in one transaction, the held leases that have used half their length, each to
 * `now + leaseMs`; returns the ids whose renewal `renew` refused (the lease is lost, or the
 * row needs none any more).
 *
 * Half-life, not every tick: renewing every lease on every tick wrote each task or delivery in
 * flight twenty times a second, for nothing. Half a lease of slack still leaves a tick, or a slow
 * transaction, room to come before the lease runs out. The task worker and the webhook
 * dispatcher both hold leases this way.
 *
 * `renew` writes one lease's new expiry inside the transaction and says whether it did. A lease
 * it renewed gets its new `leaseExpiresAt`; one it refused keeps the old one.
 */
export async function renewHalfSpentLeases<Lease extends HeldLease>(
  store: Store,
  held: Iterable<readonly [string, Lease]>,
  now: number,
  leaseMs: number,
  renew: (tx: StoreTransaction, id: string, leaseExpiresAt: number, lease: Lease) => Promise<boolean>,
): Promise<string[]> {
  const due = [...held].filter(([, lease]) => halfSpent(lease, now, leaseMs));
  if (due.length === 0) return [];
  const leaseExpiresAt = now + leaseMs;
  const refused = await store.transaction(async (tx) => {
    const refusedIds = new Set<string>();
    for (const [id, lease] of due) if (!(await renew(tx, id, leaseExpiresAt, lease))) refusedIds.add(id);
    return refusedIds;
  });
  for (const [id, lease] of due) if (!refused.has(id)) lease.leaseExpiresAt = leaseExpiresAt;
  return [...refused];
}

/** Whether half of a lease `leaseMs` long is used by `now`. */
function halfSpent(lease: HeldLease, now: number, leaseMs: number): boolean {
  return lease.leaseExpiresAt - now < leaseMs / 2;
}
