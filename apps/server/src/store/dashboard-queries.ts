/**
 * The dashboard's reads and its own records (sign-in links, sessions), in
 * Kysely so that they run on SQLite and PostgreSQL alike. Every read takes
 * the account: a row of another account is never returned, whatever id is
 * asked for. Lists are keyset-paginated newest first on
 * `(account_id, created_at, id)` indexes (migration 0005).
 */
import type { LedgerEntry, TaskState, WebhookAttemptRecord, WebhookEventRecord } from "@genvideo/engine";
import { type Kysely, type Selectable, type SelectQueryBuilder, sql } from "kysely";
import {
  ledgerFromRow,
  nullableInteger,
  requestHeadersFromText,
  webhookAttemptFromRow,
  webhookEventFromRow,
} from "./rows.js";
import type { Database, TasksTable } from "./tables.js";

/** Where a page of a newest-first list starts: strictly older than this row. */
export interface Cursor {
  createdAt: number;
  id: string;
}

export interface TaskFilter {
  states?: readonly TaskState[];
  failureCode?: string;
  /** Created at or after (service time, ms). */
  from?: number;
  /** Created before. */
  to?: number;
  /** A task id or the start of one (at least 4 characters). */
  idPrefix?: string;
}

/** What a row of the task list shows. */
export interface TaskSummary {
  id: string;
  state: TaskState;
  failureCode: string | null;
  modelType: string;
  progress: number;
  cost: number;
  refundedAt: number | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  /** The start of the prompt (`PROMPT_PREVIEW_CHARS`); null when the request is stored apart (it has images) or has none. */
  promptPreview: string | null;
}

/** How much of a prompt a row of the task list shows. */
export const PROMPT_PREVIEW_CHARS = 80;

const TASK_SUMMARY_COLUMNS = [
  "id",
  "state",
  "failure_code",
  "model_type",
  "progress",
  "cost",
  "refunded_at",
  "created_at",
  "updated_at",
  "completed_at",
  // Only small requests are in the row (INLINE_REQUEST_BYTES): at most 2 KiB a row.
  "request",
] as const;

type SummaryRow = Pick<Selectable<TasksTable>, (typeof TASK_SUMMARY_COLUMNS)[number]>;

function taskSummary(row: SummaryRow): TaskSummary {
  return {
    id: row.id,
    state: row.state as TaskState,
    failureCode: row.failure_code,
    modelType: row.model_type,
    progress: Number(row.progress),
    cost: Number(row.cost),
    refundedAt: nullableInteger(row.refunded_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    completedAt: nullableInteger(row.completed_at),
    promptPreview: promptPreview(row.request),
  };
}

function promptPreview(request: string | null): string | null {
  if (request === null) return null;
  try {
    const prompt = (JSON.parse(request) as { prompt?: unknown }).prompt;
    if (typeof prompt !== "string") return null;
    const text = prompt.trim().replace(/\s+/g, " ");
    return text.length > PROMPT_PREVIEW_CHARS ? `${text.slice(0, PROMPT_PREVIEW_CHARS - 1)}…` : text;
  } catch {
    return null;
  }
}

/** A test event sent from the dashboard, with its one attempt (sent once, never retried). */
export interface TestEventRecord {
  id: string;
  accountId: string;
  url: string;
  /** Exactly the bytes that were signed and sent. */
  payload: string;
  /** Service time the attempt started. */
  createdAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** The signature headers it was sent with. */
  requestHeaders: Record<string, string> | null;
}

/** How long a used form is remembered (wall-clock ms): longer than any page stays open to be posted again. */
const FORM_NONCE_TTL_MS = 24 * 60 * 60_000;

/** The tables whose lists are paged newest first on `(account_id, created_at, id)`. */
type NewestFirstTable = "tasks" | "ledger_entries" | "webhook_events" | "webhook_test_events";

/**
 * A page newest first, strictly older than `cursor`: the row-value comparison
 * `(created_at, id) < (?, ?)` is one index range on SQLite and PostgreSQL.
 */
function newestFirst<T extends NewestFirstTable, O>(
  query: SelectQueryBuilder<Database, T, O>,
  limit: number,
  cursor: Cursor | undefined,
): SelectQueryBuilder<Database, T, O> {
  const page = query.orderBy(sql.ref("created_at"), "desc").orderBy(sql.ref("id"), "desc").limit(limit);
  return cursor ? page.where(sql<boolean>`(created_at, id) < (${cursor.createdAt}, ${cursor.id})`) : page;
}

function oldestFirst(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The last character a task id can hold, to turn a prefix into a range on the primary key. */
const ID_RANGE_END = "\u{10FFFF}";

/**
 * The task list's filter, one rule for the list's pages and for the live
 * stream that extends them, so the two never disagree on what a row shows.
 */
function matchingTaskFilter<O>(
  query: SelectQueryBuilder<Database, "tasks", O>,
  filter: TaskFilter,
): SelectQueryBuilder<Database, "tasks", O> {
  let matching = query;
  if (filter.states && filter.states.length > 0) matching = matching.where("state", "in", [...filter.states]);
  if (filter.failureCode) matching = matching.where("failure_code", "=", filter.failureCode);
  if (filter.from !== undefined) matching = matching.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) matching = matching.where("created_at", "<", filter.to);
  if (filter.idPrefix)
    matching = matching.where("id", ">=", filter.idPrefix).where("id", "<", filter.idPrefix + ID_RANGE_END);
  return matching;
}

export class DashboardQueries {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  // ---- sign-in links and sessions (wall-clock times) ----

  async insertSignInLink(
    tokenHash: string,
    accountId: string,
    now: number,
    expiresAt: number,
  ): Promise<void> {
    await this.#db
      .insertInto("dashboard_sign_in_links")
      .values({
        token_hash: tokenHash,
        account_id: accountId,
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
  }

  /**
   * Uses a link: one conditional update, so of two racing uses exactly one
   * gets the account. Undefined for an unknown, used or expired link.
   */
  async consumeSignInLink(tokenHash: string, now: number): Promise<string | undefined> {
    const result = await this.#db
      .updateTable("dashboard_sign_in_links")
      .set({ used_at: now })
      .where("token_hash", "=", tokenHash)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const row = await this.#db
      .selectFrom("dashboard_sign_in_links")
      .select("account_id")
      .where("token_hash", "=", tokenHash)
      .executeTakeFirst();
    return row?.account_id;
  }

  async insertSession(tokenHash: string, accountId: string, now: number, expiresAt: number): Promise<void> {
    await this.#db
      .insertInto("dashboard_sessions")
      .values({ token_hash: tokenHash, account_id: accountId, created_at: now, expires_at: expiresAt })
      .execute();
  }

  /** The account of a live session, with its name. */
  async sessionAccount(
    tokenHash: string,
    now: number,
  ): Promise<{ accountId: string; name: string; credits: number } | undefined> {
    const row = await this.#db
      .selectFrom("dashboard_sessions")
      .innerJoin("accounts", "accounts.id", "dashboard_sessions.account_id")
      .select(["accounts.id", "accounts.name", "accounts.credits"])
      .where("dashboard_sessions.token_hash", "=", tokenHash)
      .where("dashboard_sessions.expires_at", ">", now)
      .executeTakeFirst();
    return row && { accountId: row.id, name: row.name, credits: Number(row.credits) };
  }

  /** The account's balance now (the header of a live list follows it). */
  async accountCredits(accountId: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom("accounts")
      .select("credits")
      .where("id", "=", accountId)
      .executeTakeFirst();
    return row && Number(row.credits);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.#db.deleteFrom("dashboard_sessions").where("token_hash", "=", tokenHash).execute();
  }

  async deleteAccountSessions(accountId: string): Promise<number> {
    const result = await this.#db
      .deleteFrom("dashboard_sessions")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Drops expired links and sessions (housekeeping, on sign-in). */
  async deleteExpired(now: number): Promise<void> {
    await this.#db.deleteFrom("dashboard_sign_in_links").where("expires_at", "<=", now).execute();
    await this.#db.deleteFrom("dashboard_sessions").where("expires_at", "<=", now).execute();
    await this.#db
      .deleteFrom("dashboard_form_nonces")
      .where("created_at", "<=", now - FORM_NONCE_TTL_MS)
      .execute();
  }

  /**
   * Marks a form as used: true the first time, false for every later post of
   * it, from any process (one insert that a second one cannot repeat).
   */
  async claimFormNonce(nonce: string, accountId: string, now: number): Promise<boolean> {
    const result = await this.#db
      .insertInto("dashboard_form_nonces")
      .values({ nonce, account_id: accountId, created_at: now })
      .onConflict((conflict) => conflict.column("nonce").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  // ---- tasks ----

  /** One page of an account's tasks, newest first, after `cursor`. */
  async listTasks(
    accountId: string,
    filter: TaskFilter,
    limit: number,
    cursor?: Cursor,
  ): Promise<TaskSummary[]> {
    const query = newestFirst(
      this.#db.selectFrom("tasks").select(TASK_SUMMARY_COLUMNS).where("account_id", "=", accountId),
      limit,
      cursor,
    );
    return (await matchingTaskFilter(query, filter).execute()).map(taskSummary);
  }

  /**
   * Tasks created after `cursor` (oldest first), except the ids in `except`:
   * what the live list has not shown yet.
   */
  async tasksCreatedAfter(
    accountId: string,
    filter: TaskFilter,
    cursor: Cursor,
    limit: number,
    except: readonly string[] = [],
  ): Promise<TaskSummary[]> {
    let query = this.#db
      .selectFrom("tasks")
      .select(TASK_SUMMARY_COLUMNS)
      .where("account_id", "=", accountId)
      .where((eb) => eb(eb.refTuple("created_at", "id"), ">", eb.tuple(cursor.createdAt, cursor.id)))
      .orderBy("created_at", "asc")
      .orderBy("id", "asc")
      .limit(limit);
    if (except.length > 0) query = query.where("id", "not in", [...except]);
    return (await matchingTaskFilter(query, filter).execute()).map(taskSummary);
  }

  /** The current summaries of these tasks, the account's only. */
  async tasksByIds(accountId: string, ids: readonly string[]): Promise<TaskSummary[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .selectFrom("tasks")
      .select(TASK_SUMMARY_COLUMNS)
      .where("account_id", "=", accountId)
      .where("id", "in", [...ids])
      .execute();
    return rows.map(taskSummary);
  }

  /**
   * A task's ledger entries (its charge, its refund), the account's only. The
   * query names the task alone, so that `ledger_entries_task_reason` is the one
   * index it can use: with the account in it too (or an ORDER BY), SQLite, which
   * has no statistics, took `ledger_entries_account_created` and walked the
   * account's whole ledger, as slow as the account is old. The task's one or two
   * entries are checked against the account and put in order here.
   */
  async taskLedger(accountId: string, taskId: string): Promise<LedgerEntry[]> {
    const rows = await this.#db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("task_id", "=", taskId)
      .execute();
    return rows
      .map(ledgerFromRow)
      .filter((entry) => entry.accountId === accountId)
      .sort(oldestFirst);
  }

  // ---- ledger ----

  async listLedger(accountId: string, limit: number, cursor?: Cursor): Promise<LedgerEntry[]> {
    const query = newestFirst(
      this.#db.selectFrom("ledger_entries").selectAll().where("account_id", "=", accountId),
      limit,
      cursor,
    );
    return (await query.execute()).map(ledgerFromRow);
  }

  // ---- webhook deliveries ----

  async listWebhookEvents(accountId: string, limit: number, cursor?: Cursor): Promise<WebhookEventRecord[]> {
    const query = newestFirst(
      this.#db.selectFrom("webhook_events").selectAll().where("account_id", "=", accountId),
      limit,
      cursor,
    );
    return (await query.execute()).map(webhookEventFromRow);
  }

  async webhookAttempts(eventIds: readonly string[]): Promise<WebhookAttemptRecord[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where("event_id", "in", [...eventIds])
      .orderBy("event_id")
      .orderBy("attempt")
      .execute();
    return rows.map(webhookAttemptFromRow);
  }

  async insertTestEvent(event: TestEventRecord): Promise<void> {
    await this.#db
      .insertInto("webhook_test_events")
      .values({
        id: event.id,
        account_id: event.accountId,
        url: event.url,
        payload: event.payload,
        created_at: event.createdAt,
        duration_ms: event.durationMs,
        status_code: event.statusCode,
        error: event.error,
        response_excerpt: event.responseExcerpt,
        request_headers: event.requestHeaders ? JSON.stringify(event.requestHeaders) : null,
      })
      .execute();
  }

  /** One page of the account's test events, newest first, after `cursor` (the delivery log's cursor). */
  async listTestEvents(accountId: string, limit: number, cursor?: Cursor): Promise<TestEventRecord[]> {
    const query = newestFirst(
      this.#db.selectFrom("webhook_test_events").selectAll().where("account_id", "=", accountId),
      limit,
      cursor,
    );
    return (await query.execute()).map((row) => ({
      id: row.id,
      accountId: row.account_id,
      url: row.url,
      payload: row.payload,
      createdAt: Number(row.created_at),
      durationMs: Number(row.duration_ms),
      statusCode: nullableInteger(row.status_code),
      error: row.error,
      responseExcerpt: row.response_excerpt,
      requestHeaders: requestHeadersFromText(row.request_headers),
    }));
  }

  /** Webhook secrets of the account: when made and until when they sign (never the secret itself). */
  async webhookSecretTimes(
    accountId: string,
  ): Promise<{ id: string; createdAt: number; expiresAt: number | null }[]> {
    const rows = await this.#db
      .selectFrom("webhook_secrets")
      .select(["id", "created_at", "expires_at"])
      .where("account_id", "=", accountId)
      .orderBy("created_at", "desc")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      createdAt: Number(row.created_at),
      expiresAt: nullableInteger(row.expires_at),
    }));
  }

  /** Counts for the task list's header, by state. */
  async countTasksByState(accountId: string): Promise<Record<string, number>> {
    const rows = await this.#db
      .selectFrom("tasks")
      .select(["state", sql<number | string>`count(*)`.as("count")])
      .where("account_id", "=", accountId)
      .groupBy("state")
      .execute();
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
  }
}
