import { timeOrderedId } from "../ids.js";
import type { LedgerEntry, LedgerReason, StoreTransaction } from "../ports.js";

/**
 * Credits live in a ledger: every change is an entry, and the balance moves
 * with it in the same transaction, so the balance always equals the sum of
 * the entries.
 */
async function post(
  tx: StoreTransaction,
  accountId: string,
  delta: number,
  reason: LedgerReason,
  now: number,
  taskId: string | null,
): Promise<boolean> {
  return tx.appendLedger({ id: timeOrderedId(), accountId, taskId, delta, reason, createdAt: now });
}

/**
 * The ledger entry that takes a task's cost, for the task's account (`StoreTransaction.insertChargedTask`
 * writes it with the task, `Store.insertChargedTaskForKey` for the key's account).
 */
export function chargeEntry(taskId: string, cost: number, now: number): Omit<LedgerEntry, "accountId"> {
  return { id: timeOrderedId(), taskId, delta: -cost, reason: "charge", createdAt: now };
}

/**
 * Gives a task's cost back. Callers run it only after winning the task's
 * terminal transition, which happens once, so a task is refunded at most once.
 */
export async function refundTask(
  tx: StoreTransaction,
  accountId: string,
  taskId: string,
  cost: number,
  now: number,
): Promise<void> {
  if (cost > 0) await post(tx, accountId, cost, "refund", now, taskId);
}

/** Adds credits to an account (sign-up grant, top-up by an operator). */
export async function grantCredits(
  tx: StoreTransaction,
  accountId: string,
  amount: number,
  now: number,
): Promise<void> {
  if (!Number.isInteger(amount) || amount <= 0)
    throw new RangeError(`credits must be a positive whole number`);
  await post(tx, accountId, amount, "grant", now, null);
}
