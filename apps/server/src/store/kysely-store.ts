/**
 * The engine's `Store` over the query groups. `createKyselyStore` runs on any
 * Kysely dialect through Kysely's own transactions (the way to PostgreSQL);
 * SQLite uses `createSqliteStore` (sqlite-store.ts), which shares the
 * queries but runs them itself.
 */
import type { Store, StoreTransaction } from "@genvideo/engine";
import type { Kysely } from "kysely";
import { KyselyAccountQueries } from "./account-queries.js";
import type { QueryContext } from "./query-group.js";
import { CompiledQueries, kyselyExecutor } from "./sql-executor.js";
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
}

export function createKyselyStore(db: Kysely<Database>, options: KyselyStoreOptions): Store {
  const compiled = new CompiledQueries();
  return {
    transaction: (work) =>
      db
        .transaction()
        .execute((trx) =>
          work(
            createStoreTransaction({ db, exec: kyselyExecutor(trx), compiled, rowLocks: options.rowLocks }),
          ),
        ),
    close: () => db.destroy(),
  };
}

/** One object with every method of `StoreTransaction`, from the three query groups. */
export function createStoreTransaction(context: QueryContext): StoreTransaction {
  const accounts = new KyselyAccountQueries(context);
  const tasks = new KyselyTaskQueries(context);
  const webhooks = new KyselyWebhookQueries(context);
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
    transitionTasks: (changes, from, patch, leaseOwner) =>
      tasks.transitionTasks(changes, from, patch, leaseOwner),
    claimQueuedTasks: (owner, limit, now, leaseExpiresAt) =>
      tasks.claimQueuedTasks(owner, limit, now, leaseExpiresAt),
    releaseExpiredLeases: (now, limit) => tasks.releaseExpiredLeases(now, limit),
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
