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

/** The type of parameter `index` of the transaction's method `method`. */
type Arg<Method extends keyof StoreTransaction, Index extends number> = Parameters<
  StoreTransaction[Method]
>[Index];

/** One object with every method of `StoreTransaction`, from the query groups. */
export function createStoreTransaction(context: QueryContext): StoreTransaction {
  return new KyselyStoreTransaction(context);
}

/**
 * Every request and every worker statement runs one transaction, so this is built per
 * transaction: its methods live on the prototype, and each query group is made the first time
 * one of its methods is called (a status read makes one). An object of about 45 closures over
 * five groups, made for each transaction, was a measurable share of a status read's CPU and
 * garbage on PostgreSQL.
 */
class KyselyStoreTransaction implements StoreTransaction {
  readonly #context: QueryContext;
  #accountQueries: KyselyAccountQueries | undefined;
  #taskQueries: KyselyTaskQueries | undefined;
  #webhookQueries: KyselyWebhookQueries | undefined;
  #requestPathQueries: KyselyRequestPathQueries | undefined;
  #historyQueries: KyselyHistoryQueries | undefined;

  constructor(context: QueryContext) {
    this.#context = context;
  }

  get #accounts(): KyselyAccountQueries {
    this.#accountQueries ??= new KyselyAccountQueries(this.#context);
    return this.#accountQueries;
  }

  get #tasks(): KyselyTaskQueries {
    this.#taskQueries ??= new KyselyTaskQueries(this.#context);
    return this.#taskQueries;
  }

  get #webhooks(): KyselyWebhookQueries {
    this.#webhookQueries ??= new KyselyWebhookQueries(this.#context);
    return this.#webhookQueries;
  }

  get #requestPath(): KyselyRequestPathQueries {
    this.#requestPathQueries ??= new KyselyRequestPathQueries(this.#context);
    return this.#requestPathQueries;
  }

  get #history(): KyselyHistoryQueries {
    this.#historyQueries ??= new KyselyHistoryQueries(this.#context);
    return this.#historyQueries;
  }

  getAccount(id: string) {
    return this.#accounts.getAccount(id);
  }
  getAccountByName(name: string) {
    return this.#accounts.getAccountByName(name);
  }
  listAccounts() {
    return this.#accounts.listAccounts();
  }
  insertAccount(account: Arg<"insertAccount", 0>) {
    return this.#accounts.insertAccount(account);
  }
  appendLedger(entry: Arg<"appendLedger", 0>) {
    return this.#accounts.appendLedger(entry);
  }
  listLedger(accountId: string) {
    return this.#accounts.listLedger(accountId);
  }
  getApiKey(id: string) {
    return this.#accounts.getApiKey(id);
  }
  getApiKeyByHash(hash: string) {
    return this.#accounts.getApiKeyByHash(hash);
  }
  getApiKeyAndTask(hash: string, taskId: string) {
    return this.#requestPath.getApiKeyAndTask(hash, taskId);
  }
  listApiKeys(accountId: string) {
    return this.#accounts.listApiKeys(accountId);
  }
  insertApiKey(key: Arg<"insertApiKey", 0>) {
    return this.#accounts.insertApiKey(key);
  }
  updateApiKey(id: string, patch: Arg<"updateApiKey", 1>) {
    return this.#accounts.updateApiKey(id, patch);
  }
  listWebhookSecrets(accountId: string) {
    return this.#accounts.listWebhookSecrets(accountId);
  }
  insertWebhookSecret(secret: Arg<"insertWebhookSecret", 0>) {
    return this.#accounts.insertWebhookSecret(secret);
  }
  updateWebhookSecret(id: string, patch: Arg<"updateWebhookSecret", 1>) {
    return this.#accounts.updateWebhookSecret(id, patch);
  }
  getIdempotency(accountId: string, key: string) {
    return this.#accounts.getIdempotency(accountId, key);
  }
  insertIdempotency(record: Arg<"insertIdempotency", 0>) {
    return this.#accounts.insertIdempotency(record);
  }
  completeIdempotency(accountId: string, key: string, status: number, body: string) {
    return this.#accounts.completeIdempotency(accountId, key, status, body);
  }
  deleteIdempotency(accountId: string, key: string) {
    return this.#accounts.deleteIdempotency(accountId, key);
  }
  deleteExpiredIdempotency(now: number) {
    return this.#accounts.deleteExpiredIdempotency(now);
  }

  getTask(id: string) {
    return this.#tasks.getTask(id);
  }
  insertTask(task: Arg<"insertTask", 0>) {
    return this.#tasks.insertTask(task);
  }
  insertChargedTask(
    task: Arg<"insertChargedTask", 0>,
    charge: Arg<"insertChargedTask", 1>,
    idempotency?: Arg<"insertChargedTask", 2>,
  ) {
    return this.#requestPath.insertChargedTask(task, charge, idempotency);
  }
  transitionTask(
    id: string,
    from: Arg<"transitionTask", 1>,
    patch: Arg<"transitionTask", 2>,
    leaseOwner?: string,
  ) {
    return this.#tasks.transitionTask(id, from, patch, leaseOwner);
  }
  transitionTasks(
    changes: Arg<"transitionTasks", 0>,
    from: Arg<"transitionTasks", 1>,
    patch: Arg<"transitionTasks", 2>,
    leaseOwner?: string,
  ) {
    return this.#tasks.transitionTasks(changes, from, patch, leaseOwner);
  }
  claimQueuedTasks(owner: string, limit: number, now: number, leaseExpiresAt: number, renderLimit?: number) {
    return this.#tasks.claimQueuedTasks(owner, limit, now, leaseExpiresAt, renderLimit);
  }
  transitionAndClaimTasks(
    ending: Arg<"transitionAndClaimTasks", 0>,
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
    renderLimit?: number,
  ) {
    return this.#tasks.transitionAndClaimTasks(ending, owner, limit, now, leaseExpiresAt, renderLimit);
  }
  releaseExpiredLeases(now: number, limit: number) {
    return this.#tasks.releaseExpiredLeases(now, limit);
  }
  listOverdueTasks(now: number, limit: number) {
    return this.#tasks.listOverdueTasks(now, limit);
  }
  listDueCompletions(now: number, limit: number) {
    return this.#tasks.listDueCompletions(now, limit);
  }
  countTasks(accountId?: string) {
    return this.#tasks.countTasks(accountId);
  }

  insertWebhookEvent(event: Arg<"insertWebhookEvent", 0>) {
    return this.#webhooks.insertWebhookEvent(event);
  }
  getWebhookEvent(id: string) {
    return this.#webhooks.getWebhookEvent(id);
  }
  listWebhookEvents(taskId: string) {
    return this.#webhooks.listWebhookEvents(taskId);
  }
  claimDueWebhookEvents(owner: string, limit: number, now: number, leaseExpiresAt: number) {
    return this.#webhooks.claimDueWebhookEvents(owner, limit, now, leaseExpiresAt);
  }
  updateWebhookEvent(id: string, patch: Arg<"updateWebhookEvent", 1>) {
    return this.#webhooks.updateWebhookEvent(id, patch);
  }
  insertWebhookAttempt(attempt: Arg<"insertWebhookAttempt", 0>) {
    return this.#webhooks.insertWebhookAttempt(attempt);
  }
  listWebhookAttempts(eventId: string) {
    return this.#webhooks.listWebhookAttempts(eventId);
  }

  deleteEndedTasks(endedBefore: number, forgetBefore: number, limit: number) {
    return this.#history.deleteEndedTasks(endedBefore, forgetBefore, limit);
  }
  getRetiredTask(id: string) {
    return this.#history.getRetiredTask(id);
  }
}
