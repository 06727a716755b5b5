/**
 * Refuses a store call made after its transaction ended (a promise kept past `transaction()`'s
 * callback, say): run then, it would land in another caller's transaction, or in none. Every
 * store checks it at each call: the memory store, and the server's SQLite and PostgreSQL stores.
 */
export function assertTransactionOpen(open: boolean): void {
  if (!open) throw new Error("transaction already ended: a store call escaped its transaction");
}
