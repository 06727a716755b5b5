/**
 * The two queries of the API's hot path, each one statement where the
 * database allows it: a status read's key and task together, and a create's
 * charge, ledger entry and task. Statement counts per request are pinned by
 * the two statement-counts.test.ts suites: beside this file for SQLite, in
 * the server's test/postgres/ folder for PostgreSQL.
 */
import type {
  CallerKeyRecord,
  IdempotencyResponse,
  KeyAndTask,
  KeyCheckedCharge,
  LedgerEntry,
  TaskRecord,
  TaskStatusRecord,
} from "@genvideo/engine";
import { type Selectable, sql } from "kysely";
import { KyselyAccountQueries } from "./account-queries.js";
import { QueryGroup } from "./query-group.js";
import { LEDGER_ROW_COLUMNS, ledgerToRow, nullableInteger, TASK_ROW_COLUMNS, taskToRow } from "./rows.js";
import { slot } from "./sql-executor.js";
import { type ApiKeysTable, INLINE_REQUEST_BYTES, type TasksTable } from "./tables.js";
import { KyselyTaskQueries } from "./task-queries.js";

/**
 * What authenticating needs of a key these statements look up by its hash (`CallerKeyRecord`),
 * selected as `key_<column>`: all but its hash, the one looked up. Each column returned is
 * described, parsed and copied on every request.
 */
const FOUND_KEY_COLUMNS = [
  "id",
  "account_id",
  "revoked_at",
  "expires_at",
  "last_used_at",
] as const satisfies readonly (keyof ApiKeysTable)[];

/**
 * What the status body shows of the task (`TaskStatusRecord`), its account being the key's and
 * its id the one asked for. A status read reads no more: each column is parsed, described and
 * copied on every read, and the request, the largest, is never shown. `state` is never null in a
 * task's row: a null one is the left join's "no such task of this account".
 */
const TASK_STATUS_COLUMNS = [
  "state",
  "failure_code",
  "progress",
  "created_at",
  "updated_at",
  "finish_at",
  "deadline_at",
  "video_key",
] as const satisfies readonly (keyof TasksTable)[];

/** Columns PostgreSQL stores as `bigint`: a value selected into them needs its type said. */
const BIGINT_COLUMNS = new Set([
  "cost",
  "refunded_at",
  "progress",
  "created_at",
  "updated_at",
  "started_at",
  "finish_at",
  "deadline_at",
  "completed_at",
  "lease_expires_at",
  "delta",
]);

type FoundKeyRow = {
  [column in (typeof FOUND_KEY_COLUMNS)[number] as `key_${column}`]: Selectable<ApiKeysTable>[column];
};

type KeyAndTaskRow = Nullable<Pick<Selectable<TasksTable>, (typeof TASK_STATUS_COLUMNS)[number]>> &
  FoundKeyRow;

/** A left join's columns: null when nothing joined. */
type Nullable<Row> = { [column in keyof Row]: Row[column] | null };

/** The key found by `hash`, from its `FOUND_KEY_COLUMNS`. */
function foundKey(row: FoundKeyRow, hash: string): CallerKeyRecord {
  return {
    id: row.key_id,
    accountId: row.key_account_id,
    hash,
    revokedAt: nullableInteger(row.key_revoked_at),
    expiresAt: nullableInteger(row.key_expires_at),
    lastUsedAt: nullableInteger(row.key_last_used_at),
  };
}

export class KyselyRequestPathQueries extends QueryGroup {
  async getApiKeyAndTask(hash: string, taskId: string): Promise<KeyAndTask | undefined> {
    const query = this.cached("getApiKeyAndTask", () => this.keyAndTaskQuery(), [hash, taskId]);
    const row = await this.first<KeyAndTaskRow>(query);
    if (!row) return undefined;
    const apiKey = foundKey(row, hash);
    // No task row (a left join's nulls): the task does not exist or is another account's.
    if (row.state === null) return { apiKey, task: undefined };
    const task: TaskStatusRecord = {
      id: taskId,
      accountId: apiKey.accountId,
      state: row.state as TaskStatusRecord["state"],
      failureCode: row.failure_code as TaskStatusRecord["failureCode"],
      progress: Number(row.progress),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      finishAt: nullableInteger(row.finish_at),
      deadlineAt: Number(row.deadline_at),
      videoKey: row.video_key,
    };
    return { apiKey, task };
  }

  /** The key by its hash, and the task only when its account is the key's (a left join: no task, no row lost). */
  private keyAndTaskQuery() {
    return this.db
      .selectFrom("api_keys")
      .leftJoin("tasks", (join) =>
        join.on("tasks.id", "=", slot(1)).onRef("tasks.account_id", "=", "api_keys.account_id"),
      )
      .select(FOUND_KEY_COLUMNS.map((column) => `api_keys.${column} as key_${column}` as const))
      .select(TASK_STATUS_COLUMNS.map((column) => `tasks.${column}` as const))
      .where("api_keys.hash", "=", slot(0));
  }

  async insertChargedTask(
    task: TaskRecord,
    charge: LedgerEntry,
    idempotency?: IdempotencyResponse,
  ): Promise<boolean> {
    if (!this.context.dataModifyingCtes) {
      // SQLite: the same writes in the caller's transaction, the charge first.
      const accounts = new KyselyAccountQueries(this.context);
      if (!(await accounts.appendLedger(charge))) return false;
      await new KyselyTaskQueries(this.context).insertTask(task);
      if (idempotency)
        await accounts.completeIdempotency(
          charge.accountId,
          idempotency.key,
          idempotency.status,
          idempotency.body,
        );
      return true;
    }
    const row = await this.chargedTask({ accountId: charge.accountId }, task, charge, idempotency);
    return Number(row?.charged ?? 0) === 1;
  }

  /**
   * `Store.insertChargedTaskForKey`, PostgreSQL only (`dataModifyingCtes`): the live key found by
   * its hash, the charge to its account, the ledger entry and the task in one statement.
   */
  async insertChargedTaskForKey(
    keyHash: string,
    now: number,
    task: Omit<TaskRecord, "accountId">,
    charge: Omit<LedgerEntry, "accountId">,
  ): Promise<KeyCheckedCharge> {
    if (!this.context.dataModifyingCtes) throw new Error("a key-checked create needs data-modifying CTEs");
    const row = await this.chargedTask({ keyHash, now }, task, charge);
    if (!row) return { apiKey: undefined };
    // Only an unrevoked key is found: its revocation does not come back from the statement.
    const apiKey = foundKey({ ...(row as ChargedKeyRow), key_revoked_at: null }, keyHash);
    return Number(row.charged) === 1
      ? { apiKey, charged: true }
      : { apiKey, charged: false, credits: Number(row.credits) };
  }

  /** Runs `chargedTaskStatement` for `payer` (an account, or whoever holds a live key); its one row. */
  private async chargedTask(
    payer: Payer,
    task: Omit<TaskRecord, "accountId">,
    charge: Omit<LedgerEntry, "accountId">,
    idempotency?: IdempotencyResponse,
  ): Promise<ChargedRow | undefined> {
    const request = JSON.stringify(task.request);
    // Told by its length first: a UTF-8 byte count of a request of images is a pass over megabytes.
    const inline =
      request.length <= INLINE_REQUEST_BYTES && Buffer.byteLength(request) <= INLINE_REQUEST_BYTES;
    // The account comes from the statement (the key's, or the debit's): no column of its own here.
    const taskRow: Partial<Record<(typeof TASK_COLUMNS)[number], unknown>> = taskToRow(task, "");
    taskRow.request = inline ? request : null;
    const ledgerRow: Partial<Record<(typeof LEDGER_COLUMNS)[number], unknown>> = ledgerToRow(charge, "");
    const keyed = "keyHash" in payer;
    const values: unknown[] = keyed
      ? [charge.delta, payer.keyHash, payer.now]
      : [charge.delta, payer.accountId];
    // Indexed, not for-of nor a spread: those made an iterator result per value of every create
    // (0.9 KB of a create's garbage, sampled).
    for (let index = 0; index < TASK_COLUMNS.length; index++)
      values.push(taskRow[TASK_COLUMNS[index]!] ?? null);
    for (let index = 0; index < LEDGER_COLUMNS.length; index++)
      values.push(ledgerRow[LEDGER_COLUMNS[index]!] ?? null);
    if (!inline) values.push(task.id, request);
    if (idempotency) values.push(idempotency.key, idempotency.status, idempotency.body);
    const completes = idempotency !== undefined;
    const query = this.cached(
      CHARGED_TASK_QUERY_NAMES[(inline ? 4 : 0) + (completes ? 2 : 0) + (keyed ? 1 : 0)]!,
      () => ({
        compile: () =>
          chargedTaskStatement(TASK_COLUMNS, LEDGER_COLUMNS, { inline, completes, keyed }).compile(this.db),
      }),
      values,
    );
    const row = await this.first<ChargedRow>(query);
    if (Number(row?.charged ?? 0) === 1 && task.state === "queued") this.context.onWork?.();
    return row;
  }
}

/**
 * The columns of a charged create's rows that take a value of their own: all but the account,
 * the charge's own, selected from the debit's RETURNING. Fixed lists: finding them from each
 * row's keys (listed, filtered, sorted) made row building the largest own CPU time in a
 * create's profile once, and joining the keys into a cache key per create still cost 3 µs.
 */
const TASK_COLUMNS = TASK_ROW_COLUMNS.filter((column) => column !== "account_id");
const LEDGER_COLUMNS = LEDGER_ROW_COLUMNS.filter((column) => column !== "account_id");

/**
 * `chargedTask`'s names for its statement's shapes, by inline request (4), Idempotency-Key
 * completed (2) and key-checked (1): made once, as a name built per create is a string to hash
 * per create.
 */
const CHARGED_TASK_QUERY_NAMES = Array.from(
  { length: 8 },
  (_, shape) => `insertChargedTask:${(shape & 4) > 0}:${(shape & 2) > 0}:${(shape & 1) > 0}`,
);

/** Who pays for a create: a named account, or the account of the key with this hash if it is live at `now`. */
type Payer = { accountId: string } | { keyHash: string; now: number };

/** The key's columns a keyed create's statement returns: its revocation is none (only a live key is found). */
const CHARGED_KEY_COLUMNS = FOUND_KEY_COLUMNS.filter((column) => column !== "revoked_at");

type ChargedKeyRow = Omit<FoundKeyRow, "key_revoked_at">;

/** `chargedTaskStatement`'s row: whether it charged; keyed, the live key (`key_<column>`), and its account's balance when refused. */
type ChargedRow = { charged: number | string; credits?: number | string | null } & Partial<ChargedKeyRow>;

/**
 * PostgreSQL: the conditional debit, the ledger entry, the task (and its large
 * request), and the Idempotency-Key's response when `completes`, in one
 * statement. The inserts select from the debit's RETURNING, so when the
 * balance is short they insert nothing; the account's row is locked for this
 * statement only. Values are slots in the order `chargedTask` lists them.
 *
 * `keyed`: the account is the one of the key whose hash is slot 1, if that key
 * is live at slot 2 (not revoked, not expired: `liveCaller`'s rule), read in
 * the same statement (`caller`); no live key, no debit, and no row comes back.
 * The row then carries the key's columns (`CHARGED_KEY_COLUMNS`) and, when
 * nothing was charged, the balance the statement saw, for a refusal's message
 * (a create that charged reads no account row beside its debit).
 */
function chargedTaskStatement(
  taskColumns: readonly string[],
  ledgerColumns: readonly string[],
  { inline, completes, keyed }: { inline: boolean; completes: boolean; keyed: boolean },
) {
  let next = keyed ? 3 : 2;
  const value = (column: string) => {
    const placeholder = sql`${slot(next++)}`;
    return BIGINT_COLUMNS.has(column) ? sql`${placeholder}::bigint` : sql`${placeholder}::text`;
  };
  const insert = (table: string, columns: readonly string[]) =>
    sql`insert into ${sql.table(table)} (account_id, ${sql.join(columns.map((c) => sql.ref(c)))}) select id, ${sql.join(
      columns.map(value),
    )} from charged`;
  const task = insert("tasks", taskColumns);
  const ledger = insert("ledger_entries", ledgerColumns);
  const request = inline
    ? sql``
    : sql`, request as (insert into task_requests (task_id, request) select ${slot(next++)}::text, ${slot(next++)}::text from charged)`;
  const done = completes
    ? sql`, done as (update idempotency_keys set state = 'done', response_status = ${slot(next + 1)}::bigint,
        response_body = ${slot(next + 2)}::text
        where account_id = ${slot(1)}::text and key = ${slot(next)}::text and exists (select 1 from charged))`
    : sql``;
  const debit = sql`update accounts set credits = credits + ${slot(0)}::bigint
    where id = ${keyed ? sql`(select account_id from caller)` : sql`${slot(1)}::text`}
    and credits + ${slot(0)}::bigint >= 0 returning id`;
  if (!keyed)
    return sql<ChargedRow>`with charged as (
    ${debit}
  ), task as (${task}), ledger as (${ledger})${request}${done}
  select count(*)::int as charged from charged`;
  const keyColumns = sql.join(CHARGED_KEY_COLUMNS.map((column) => sql.ref(column)));
  const keyAliases = sql.join(
    CHARGED_KEY_COLUMNS.map((column) => sql`${sql.ref(`caller.${column}`)} as ${sql.ref(`key_${column}`)}`),
  );
  return sql<ChargedRow>`with caller as (
    select ${keyColumns} from api_keys where hash = ${slot(1)}::text and revoked_at is null
    and (expires_at is null or expires_at > ${slot(2)}::bigint)
  ), charged as (
    ${debit}
  ), task as (${task}), ledger as (${ledger})${request}
  select ${keyAliases}, (select count(*) from charged)::int as charged,
    (select credits from accounts where id = caller.account_id and not exists (select 1 from charged)) as credits
  from caller`;
}
