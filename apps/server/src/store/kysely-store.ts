/**
 * The engine's `Store` on any Kysely database. The queries are
 * dialect-neutral (SQLite 3.35+ and PostgreSQL both have RETURNING and
 * ON CONFLICT); what differs is passed in as `KyselyStoreOptions`.
 */
import type { Store, StoreTransaction } from "@genvideo/engine";
import type { Kysely, Transaction } from "kysely";
import { KyselyAccountQueries } from "./account-queries.js";
import type { Database } from "./tables.js";
import { KyselyTaskQueries } from "./task-queries.js";
import { KyselyWebhookQueries } from "./webhook-queries.js";

export interface KyselyStoreOptions {
  /**
   * Claims lock the rows they take with `FOR UPDATE SKIP LOCKED`, so that
   * workers in several processes never take the same task (PostgreSQL).
   * SQLite has no row locks: its write transaction already excludes everyone.
   */
  rowLocks: boolean;
  /** Runs when `close()` is called, after Kysely has been destroyed. */
  onClose?: () => Promise<void> | void;
}

export function createKyselyStore(db: Kysely<Database>, options: KyselyStoreOptions): Store {
  return {
    transaction: (work) => db.transaction().execute((trx) => work(createStoreTransaction(trx, options))),
    async close() {
      await db.destroy();
      await options.onClose?.();
    },
  };
}

/**
 * One object with every method of `StoreTransaction`, assembled from the
 * three query groups so that each stays a readable size.
 */
export function createStoreTransaction(
  trx: Transaction<Database> | Kysely<Database>,
  options: KyselyStoreOptions,
): StoreTransaction {
  const accounts = new KyselyAccountQueries(trx);
  const tasks = new KyselyTaskQueries(trx, options.rowLocks);
  const webhooks = new KyselyWebhookQueries(trx, options.rowLocks);
  return {
    getAccount: (id) => accounts.getAccount(id),
    getAccountByName: (name) => accounts.getAccountByName(name),
    listAccounts: () => accounts.listAccounts(),
    insertAccount: (account) => accounts.insertAccount(account),
    appendLedger: (entry) => accounts.appendLedger(entry),
    listLedger: (accountId) => accounts.listLedger(accountId),
    getApiKey: (id) => accounts.getApiKey(id),
    getApiKeyByHash: (hash) => accounts.getApiKeyByHash(hash),
    listApiKeys: (accountId) => accounts.listApiKeys(accountId),
    insertApiKey: (key) => accounts.insertApiKey(key),
    updateApiKey: (id, patch) => accounts.updateApiKey(id, patch),
    listWebhookSecrets: (accountId) => accounts.listWebhookSecrets(accountId),
    insertWebhookSecret: (secret) => accounts.insertWebhookSecret(secret),
    updateWebhookSecret: (id, patch) => accounts.updateWebhookSecret(id, patch),
    getIdempotency: (accountId, key) => accounts.getIdempotency(accountId, key),
    insertIdempotency: (record) => accounts.insertIdempotency(record),
    completeIdempotency: (accountId, key, status, body) =>
      accounts.completeIdempotency(accountId, key, status, body),
    deleteIdempotency: (accountId, key) => accounts.deleteIdempotency(accountId, key),
    deleteExpiredIdempotency: (now) => accounts.deleteExpiredIdempotency(now),

    getTask: (id) => tasks.getTask(id),
    insertTask: (task) => tasks.insertTask(task),
    transitionTask: (id, from, patch, leaseOwner) => tasks.transitionTask(id, from, patch, leaseOwner),
    claimQueuedTasks: (owner, limit, now, leaseExpiresAt) =>
      tasks.claimQueuedTasks(owner, limit, now, leaseExpiresAt),
    listExpiredLeases: (now, limit) => tasks.listExpiredLeases(now, limit),
    listOverdueTasks: (now, limit) => tasks.listOverdueTasks(now, limit),
    listDueCompletions: (now, limit) => tasks.listDueCompletions(now, limit),
    countTasks: (accountId) => tasks.countTasks(accountId),

    insertWebhookEvent: (event) => webhooks.insertWebhookEvent(event),
    getWebhookEvent: (id) => webhooks.getWebhookEvent(id),
    listWebhookEvents: (taskId) => webhooks.listWebhookEvents(taskId),
    claimDueWebhookEvents: (owner, limit, now, leaseExpiresAt) =>
      webhooks.claimDueWebhookEvents(owner, limit, now, leaseExpiresAt),
    updateWebhookEvent: (id, patch) => webhooks.updateWebhookEvent(id, patch),
    insertWebhookAttempt: (attempt) => webhooks.insertWebhookAttempt(attempt),
    listWebhookAttempts: (eventId) => webhooks.listWebhookAttempts(eventId),
  };
}
