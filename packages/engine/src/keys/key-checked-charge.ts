import type { KeyCheckedCharge, LedgerEntry, StoreTransaction, TaskRecord } from "../ports.js";
import { liveCaller } from "./authenticate.js";

/**
 * `Store.insertChargedTaskForKey` for a store that runs it as one transaction of
 * its own (SQLite): the key read by its hash and held to the rule every request
 * is (`liveCaller`), then the create's charge and task for the key's account.
 * A short balance is read back for the 402, in the same transaction.
 */
export async function chargeForKey(
  tx: StoreTransaction,
  keyHash: string,
  now: number,
  task: Omit<TaskRecord, "accountId">,
  charge: Omit<LedgerEntry, "accountId">,
): Promise<KeyCheckedCharge> {
  const apiKey = await tx.getApiKeyByHash(keyHash);
  const found = liveCaller(apiKey, keyHash, now);
  if (!found.ok || !apiKey) return { apiKey: undefined };
  const { accountId } = found.caller;
  if (await tx.insertChargedTask({ ...task, accountId }, { ...charge, accountId }))
    return { apiKey, charged: true };
  // A key's account always exists (accounts are never deleted): without one, a store is broken.
  const account = await tx.getAccount(accountId);
  if (!account) throw new Error(`no account ${accountId} for key ${apiKey.id}`);
  return { apiKey, charged: false, credits: account.credits };
}
