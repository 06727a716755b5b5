/**
 * The engine's `StoreTransaction` over the query groups, which the SQLite store
 * (sqlite-store.ts) and the PostgreSQL store (postgres-store.ts) share: each
 * runs its transactions itself and hands this the executor of one.
 */
import type { StoreTransaction } from "@genvideo/engine";
import { KyselyAccountQueries } from "./account-queries.js";
import { KyselyHistoryQueries } from "./history-queries.js";
import type { QueryContext } from "./query-group.js";
import { KyselyRequestPathQueries } from "./request-path-queries.js";
import { KyselyTaskQueries } from "./task-queries.js";
import { KyselyWebhookQueries } from "./webhook-queries.js";

/** One object with every method of `StoreTransaction`, from the query groups. */
export function createStoreTransaction(context: QueryContext): StoreTransaction {
  const accounts = new KyselyAccountQueries(context);
  const tasks = new KyselyTaskQueries(context);
  const webhooks = new KyselyWebhookQueries(context);
  const requestPath = new KyselyRequestPathQueries(context);
  const history = new KyselyHistoryQueries(context);
  return {
    getAccount: (id) => accounts.getAccount(id),
    getAccountByName: (name) => accounts.getAccountByName(name),
    listAccounts: () => accounts.listAccounts(),
    insertAccount: (account) => accounts.insertAccount(account),
    appendLedger: (entry) => accounts.appendLedger(entry),
    listLedger: (accountId) => accounts.listLedger(accountId),
    getApiKey: (id) => accounts.getApiKey(id),
    getApiKeyByHash: (hash) => accounts.getApiKeyByHash(hash),
    getApiKeyAndTask: (hash, taskId) => requestPath.getApiKeyAndTask(hash, taskId),
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
    insertChargedTask: (task, charge, idempotency) =>
      requestPath.insertChargedTask(task, charge, idempotency),
    transitionTask: (id, from, patch, leaseOwner) => tasks.transitionTask(id, from, patch, leaseOwner),
    transitionTasks: (changes, from, patch, leaseOwner) =>
      tasks.transitionTasks(changes, from, patch, leaseOwner),
    claimQueuedTasks: (owner, limit, now, leaseExpiresAt, renderLimit) =>
      tasks.claimQueuedTasks(owner, limit, now, leaseExpiresAt, renderLimit),
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

    deleteEndedTasks: (endedBefore, forgetBefore, limit) =>
      history.deleteEndedTasks(endedBefore, forgetBefore, limit),
    getRetiredTask: (id) => history.getRetiredTask(id),
  };
}
