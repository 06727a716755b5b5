import type {
  AccountRecord,
  ApiKeyRecord,
  IdempotencyRecord,
  IdempotencyResponse,
  LedgerEntry,
  RetiredTask,
  Store,
  StoreTransaction,
  TaskRecord,
  WebhookAttemptRecord,
  WebhookEventRecord,
  WebhookSecretRecord,
} from "../ports.js";
import { mayNeedRender } from "../tasks/scenario.js";
import { assertTransactionOpen } from "./transaction-guard.js";
import { byCreation, copy, undoableWrites } from "./undo-journal.js";

interface MemoryTables {
  accounts: Map<string, AccountRecord>;
  ledger: LedgerEntry[];
  apiKeys: Map<string, ApiKeyRecord>;
  webhookSecrets: Map<string, WebhookSecretRecord>;
  tasks: Map<string, TaskRecord>;
  idempotency: Map<string, IdempotencyRecord>;
  webhookEvents: Map<string, WebhookEventRecord>;
  webhookAttempts: WebhookAttemptRecord[];
  retiredTasks: Map<string, RetiredTask>;
}

export interface MemoryStoreOptions {
  /**
   * Runs each transaction's work twice, the first run undone, as a store that
   * retries may (see `Store.transaction`): work that is not safe to run again
   * (a Hono `next()` inside, a message sent) then fails in tests.
   */
  rehearse?: boolean;
}

/**
 * The in-memory `Store` of tests and the msw mock. Transactions run one at a
 * time and keep an undo log: a transaction that throws leaves no trace, as on
 * SQLite or PostgreSQL.
 */
export class MemoryStore implements Store {
  readonly #tables: MemoryTables = {
    accounts: new Map(),
    ledger: [],
    apiKeys: new Map(),
    webhookSecrets: new Map(),
    tasks: new Map(),
    idempotency: new Map(),
    webhookEvents: new Map(),
    webhookAttempts: [],
    retiredTasks: new Map(),
  };
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #rehearse: boolean;

  constructor(options: MemoryStoreOptions = {}) {
    this.#rehearse = options.rehearse ?? false;
  }

  /** Runs `work` alone; on a throw every change it made is undone and the error rethrown. */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("the store is closed"));
    const attempt = async (keep: boolean) => {
      const undo: (() => void)[] = [];
      let open = true;
      const tx = memoryTransaction(this.#tables, undo, () => open);
      try {
        const value = await work(tx);
        if (!keep) for (const step of undo.reverse()) step();
        return value;
      } catch (error) {
        for (const step of undo.reverse()) step();
        throw error;
      } finally {
        open = false;
      }
    };
    const run = async () => {
      if (this.#rehearse) await attempt(false);
      return attempt(true);
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
  }
}

function memoryTransaction(
  tables: MemoryTables,
  undo: (() => void)[],
  isOpen: () => boolean,
): StoreTransaction {
  const guard = () => assertTransactionOpen(isOpen());
  const { put, remove, push, filter } = undoableWrites(undo);
  const idempotencyKey = (accountId: string, key: string) => `${accountId}\u0000${key}`;
  const completeIdempotency = (accountId: string, { key, status, body }: IdempotencyResponse) => {
    const record = tables.idempotency.get(idempotencyKey(accountId, key));
    if (record)
      put(tables.idempotency, idempotencyKey(accountId, key), {
        ...record,
        state: "done",
        responseStatus: status,
        responseBody: body,
      });
  };

  return {
    async getAccount(id) {
      guard();
      const account = tables.accounts.get(id);
      return account && copy(account);
    },
    async getAccountByName(name) {
      guard();
      const account = [...tables.accounts.values()].find((candidate) => candidate.name === name);
      return account && copy(account);
    },
    async listAccounts() {
      guard();
      return [...tables.accounts.values()].sort(byCreation).map(copy);
    },
    async insertAccount(account) {
      guard();
      if (tables.accounts.has(account.id)) throw new Error(`account ${account.id} exists`);
      if ([...tables.accounts.values()].some((other) => other.name === account.name))
        throw new Error(`an account named ${account.name} exists`);
      put(tables.accounts, account.id, account);
    },
    async appendLedger(entry) {
      guard();
      const account = tables.accounts.get(entry.accountId);
      if (!account) throw new Error(`no account ${entry.accountId}`);
      if (account.credits + entry.delta < 0) return false;
      put(tables.accounts, account.id, { ...account, credits: account.credits + entry.delta });
      push(tables.ledger, { ...entry });
      return true;
    },
    async listLedger(accountId) {
      guard();
      return tables.ledger.filter((entry) => entry.accountId === accountId).map(copy);
    },

    async getApiKey(id) {
      guard();
      const key = tables.apiKeys.get(id);
      return key && copy(key);
    },
    async getApiKeyByHash(hash) {
      guard();
      const key = [...tables.apiKeys.values()].find((candidate) => candidate.hash === hash);
      return key && copy(key);
    },
    async getApiKeyAndTask(hash, taskId) {
      guard();
      const key = [...tables.apiKeys.values()].find((candidate) => candidate.hash === hash);
      if (!key) return undefined;
      const task = tables.tasks.get(taskId);
      return { apiKey: copy(key), task: task && task.accountId === key.accountId ? copy(task) : undefined };
    },
    async listApiKeys(accountId) {
      guard();
      return [...tables.apiKeys.values()]
        .filter((key) => key.accountId === accountId)
        .sort(byCreation)
        .map(copy);
    },
    async insertApiKey(key) {
      guard();
      if ([...tables.apiKeys.values()].some((other) => other.hash === key.hash))
        throw new Error("an API key with this hash exists");
      put(tables.apiKeys, key.id, key);
    },
    async updateApiKey(id, patch) {
      guard();
      const key = tables.apiKeys.get(id);
      if (key) put(tables.apiKeys, id, { ...key, ...patch });
    },

    async listWebhookSecrets(accountId) {
      guard();
      return [...tables.webhookSecrets.values()]
        .filter((secret) => secret.accountId === accountId)
        .sort(byCreation)
        .map(copy);
    },
    async insertWebhookSecret(secret) {
      guard();
      put(tables.webhookSecrets, secret.id, secret);
    },
    async updateWebhookSecret(id, patch) {
      guard();
      const secret = tables.webhookSecrets.get(id);
      if (secret) put(tables.webhookSecrets, id, { ...secret, ...patch });
    },

    async getTask(id) {
      guard();
      const task = tables.tasks.get(id);
      return task && copy(task);
    },
    async insertTask(task) {
      guard();
      if (tables.tasks.has(task.id)) throw new Error(`task ${task.id} exists`);
      put(tables.tasks, task.id, task);
    },
    async insertChargedTask(task, charge, idempotency) {
      guard();
      const account = tables.accounts.get(charge.accountId);
      if (!account) throw new Error(`no account ${charge.accountId}`);
      if (account.credits + charge.delta < 0) return false;
      if (tables.tasks.has(task.id)) throw new Error(`task ${task.id} exists`);
      put(tables.accounts, account.id, { ...account, credits: account.credits + charge.delta });
      push(tables.ledger, { ...charge });
      put(tables.tasks, task.id, task);
      if (idempotency) completeIdempotency(charge.accountId, idempotency);
      return true;
    },
    async transitionTask(id, from, patch, leaseOwner) {
      guard();
      const task = tables.tasks.get(id);
      if (!task || !from.includes(task.state)) return false;
      if (leaseOwner !== undefined && task.leaseOwner !== leaseOwner) return false;
      put(tables.tasks, id, { ...task, ...patch });
      return true;
    },
    async transitionTasks(tasks, from, patch, leaseOwner) {
      guard();
      const changed: string[] = [];
      for (const { id, videoKey } of tasks) {
        const task = tables.tasks.get(id);
        if (!task || !from.includes(task.state)) continue;
        if (leaseOwner !== undefined && task.leaseOwner !== leaseOwner) continue;
        put(tables.tasks, id, { ...task, ...patch, ...(videoKey === undefined ? {} : { videoKey }) });
        changed.push(id);
      }
      return changed;
    },
    async claimQueuedTasks(owner, limit, now, leaseExpiresAt, renderLimit = limit) {
      guard();
      const queued = [...tables.tasks.values()]
        .filter((task) => task.state === "queued")
        .sort(byCreation)
        .slice(0, Math.max(0, limit));
      let renders = 0;
      const stop = queued.findIndex((task) => mayNeedRender(task) && ++renders > renderLimit);
      const claimed = queued.slice(0, stop === -1 ? queued.length : stop).map((task) => ({
        ...task,
        state: "processing" as const,
        leaseOwner: owner,
        leaseExpiresAt,
        startedAt: now,
        updatedAt: now,
      }));
      for (const task of claimed) put(tables.tasks, task.id, task);
      return claimed.map(copy);
    },
    async transitionAndClaimTasks(ending, owner, limit, now, leaseExpiresAt, renderLimit) {
      const transitioned = await this.transitionTasks(ending.tasks, ending.from, ending.patch, owner);
      const claimed = await this.claimQueuedTasks(owner, limit, now, leaseExpiresAt, renderLimit);
      return { transitioned, claimed };
    },
    async releaseExpiredLeases(now, limit) {
      guard();
      const expired = [...tables.tasks.values()]
        .filter(
          (task) => task.state === "processing" && task.leaseExpiresAt !== null && task.leaseExpiresAt <= now,
        )
        .sort((a, b) => a.leaseExpiresAt! - b.leaseExpiresAt! || byCreation(a, b))
        .slice(0, Math.max(0, limit));
      for (const task of expired) {
        const released = { leaseOwner: null, leaseExpiresAt: null, startedAt: null, finishAt: null };
        put(tables.tasks, task.id, { ...task, ...released, state: "queued" });
      }
      return expired.length;
    },
    async listOverdueTasks(now, limit) {
      guard();
      return [...tables.tasks.values()]
        .filter((task) => (task.state === "queued" || task.state === "processing") && task.deadlineAt <= now)
        .sort((a, b) => a.deadlineAt - b.deadlineAt || byCreation(a, b))
        .slice(0, limit)
        .map(copy);
    },
    async listDueCompletions(now, limit) {
      guard();
      return [...tables.tasks.values()]
        .filter(
          (task) =>
            task.state === "processing" &&
            task.finishAt !== null &&
            task.finishAt <= now &&
            (task.videoKey !== null || task.scenario.fail !== undefined),
        )
        .sort((a, b) => (a.finishAt ?? 0) - (b.finishAt ?? 0) || byCreation(a, b))
        .slice(0, limit)
        .map(copy);
    },
    async countTasks(accountId) {
      guard();
      return [...tables.tasks.values()].filter(
        (task) => accountId === undefined || task.accountId === accountId,
      ).length;
    },

    async getIdempotency(accountId, key) {
      guard();
      const record = tables.idempotency.get(idempotencyKey(accountId, key));
      return record && copy(record);
    },
    async insertIdempotency(record) {
      guard();
      const existing = tables.idempotency.get(idempotencyKey(record.accountId, record.key));
      if (existing && existing.expiresAt > record.createdAt) return false;
      put(tables.idempotency, idempotencyKey(record.accountId, record.key), record);
      return true;
    },
    async completeIdempotency(accountId, key, status, body) {
      guard();
      completeIdempotency(accountId, { key, status, body });
    },
    async deleteIdempotency(accountId, key) {
      guard();
      remove(tables.idempotency, idempotencyKey(accountId, key));
    },
    async deleteExpiredIdempotency(now) {
      guard();
      const expired = [...tables.idempotency.entries()].filter(([, record]) => record.expiresAt <= now);
      for (const [key] of expired) remove(tables.idempotency, key);
      return expired.length;
    },

    async insertWebhookEvent(event) {
      guard();
      if (tables.webhookEvents.has(event.id)) throw new Error(`webhook event ${event.id} exists`);
      put(tables.webhookEvents, event.id, event);
    },
    async getWebhookEvent(id) {
      guard();
      const event = tables.webhookEvents.get(id);
      return event && copy(event);
    },
    async listWebhookEvents(taskId) {
      guard();
      return [...tables.webhookEvents.values()]
        .filter((event) => event.taskId === taskId)
        .sort(byCreation)
        .map(copy);
    },
    async claimDueWebhookEvents(owner, limit, now, leaseExpiresAt) {
      guard();
      const claimed = [...tables.webhookEvents.values()]
        .filter(
          (event) =>
            event.state === "pending" &&
            event.nextAttemptAt !== null &&
            event.nextAttemptAt <= now &&
            (event.leaseExpiresAt === null || event.leaseExpiresAt <= now),
        )
        .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0) || byCreation(a, b))
        .slice(0, Math.max(0, limit))
        .map((event) => ({ ...event, leaseOwner: owner, leaseExpiresAt }));
      for (const event of claimed) put(tables.webhookEvents, event.id, event);
      return claimed.map(copy);
    },
    async updateWebhookEvent(id, patch) {
      guard();
      const event = tables.webhookEvents.get(id);
      if (event) put(tables.webhookEvents, id, { ...event, ...patch });
    },
    async insertWebhookAttempt(attempt) {
      guard();
      push(tables.webhookAttempts, {
        ...attempt,
        responseExcerpt: attempt.responseExcerpt ?? null,
        requestHeaders: attempt.requestHeaders ?? null,
      });
    },
    async listWebhookAttempts(eventId) {
      guard();
      return tables.webhookAttempts
        .filter((attempt) => attempt.eventId === eventId)
        .sort((a, b) => a.attempt - b.attempt)
        .map(copy);
    },

    async deleteEndedTasks(endedBefore, forgetBefore, limit) {
      guard();
      const pending = new Set(
        [...tables.webhookEvents.values()].filter((e) => e.state === "pending").map((e) => e.taskId),
      );
      const ended = [...tables.tasks.values()]
        .filter(
          (task) =>
            (task.state === "completed" || task.state === "failed") &&
            task.updatedAt < endedBefore &&
            !pending.has(task.id),
        )
        .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : 1))
        .slice(0, Math.max(0, limit));
      const ids = new Set(ended.map((task) => task.id));
      const folded = tables.ledger.filter((entry) => entry.taskId !== null && ids.has(entry.taskId));
      for (const accountId of new Set(folded.map((entry) => entry.accountId))) {
        const entries = folded.filter((entry) => entry.accountId === accountId);
        const id = `carried-forward:${accountId}`;
        const carried = tables.ledger.find((entry) => entry.id === id);
        const delta = entries.reduce((sum, entry) => sum + entry.delta, carried?.delta ?? 0);
        const createdAt = Math.max(carried?.createdAt ?? 0, ...entries.map((entry) => entry.createdAt));
        filter(tables.ledger, (entry) => entry.id !== id);
        push(tables.ledger, { id, accountId, taskId: null, delta, reason: "carried_forward", createdAt });
      }
      const ledgerEntries = filter(tables.ledger, (entry) => entry.taskId === null || !ids.has(entry.taskId));
      const events = [...tables.webhookEvents.values()].filter((event) => ids.has(event.taskId));
      const eventIds = new Set(events.map((event) => event.id));
      const webhookAttempts = filter(tables.webhookAttempts, (attempt) => !eventIds.has(attempt.eventId));
      for (const event of events) remove(tables.webhookEvents, event.id);
      for (const task of ended) {
        remove(tables.tasks, task.id);
        put(tables.retiredTasks, task.id, {
          id: task.id,
          accountId: task.accountId,
          endedAt: task.updatedAt,
        });
      }
      const forgotten = [...tables.retiredTasks.values()]
        .filter((retired) => retired.endedAt < forgetBefore)
        .slice(0, Math.max(0, limit));
      for (const retired of forgotten) remove(tables.retiredTasks, retired.id);
      return {
        tasks: ended.length,
        ledgerEntries,
        webhookEvents: events.length,
        webhookAttempts,
        forgotten: forgotten.length,
      };
    },
    async getRetiredTask(id) {
      guard();
      const retired = tables.retiredTasks.get(id);
      return retired && copy(retired);
    },
  };
}

/** A fresh, empty in-memory store. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryStore(options);
}
