/**
 * Translation between table rows and the engine's records. Integer columns
 * go through `Number()`, a no-op on the numbers both stores read (see tables.ts).
 */
import type {
  AccountRecord,
  ApiKeyRecord,
  IdempotencyRecord,
  LedgerEntry,
  TaskRecord,
  WebhookAttemptRecord,
  WebhookEventRecord,
  WebhookSecretRecord,
} from "@genvideo/engine";
import type { Insertable, Selectable, Updateable } from "kysely";
import type {
  AccountsTable,
  ApiKeysTable,
  IdempotencyKeysTable,
  LedgerEntriesTable,
  TasksTable,
  WebhookAttemptsTable,
  WebhookEventsTable,
  WebhookSecretsTable,
} from "./tables.js";

const integer = (value: number | string): number => Number(value);
export const nullableInteger = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

export const accountFromRow = (row: Selectable<AccountsTable>): AccountRecord => ({
  id: row.id,
  name: row.name,
  credits: integer(row.credits),
  createdAt: integer(row.created_at),
});

export const accountToRow = (account: AccountRecord): Insertable<AccountsTable> => ({
  id: account.id,
  name: account.name,
  credits: account.credits,
  created_at: account.createdAt,
});

export const ledgerFromRow = (row: Selectable<LedgerEntriesTable>): LedgerEntry => ({
  id: row.id,
  accountId: row.account_id,
  taskId: row.task_id,
  delta: integer(row.delta),
  reason: row.reason as LedgerEntry["reason"],
  createdAt: integer(row.created_at),
});

/** A ledger entry's row, for `accountId` (a create's charge is written before its account is known to it). */
export const ledgerToRow = (
  entry: Omit<LedgerEntry, "accountId">,
  accountId: string,
): Required<Insertable<LedgerEntriesTable>> => ({
  id: entry.id,
  account_id: accountId,
  task_id: entry.taskId,
  delta: entry.delta,
  reason: entry.reason,
  created_at: entry.createdAt,
});

export const apiKeyFromRow = (row: Selectable<ApiKeysTable>): ApiKeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  hash: row.hash,
  prefix: row.prefix,
  createdAt: integer(row.created_at),
  revokedAt: nullableInteger(row.revoked_at),
  expiresAt: nullableInteger(row.expires_at),
  name: row.name,
  lastUsedAt: nullableInteger(row.last_used_at),
});

export const apiKeyToRow = (key: ApiKeyRecord): Insertable<ApiKeysTable> => ({
  id: key.id,
  account_id: key.accountId,
  hash: key.hash,
  prefix: key.prefix,
  created_at: key.createdAt,
  revoked_at: key.revokedAt,
  expires_at: key.expiresAt,
  name: key.name,
  last_used_at: key.lastUsedAt,
});

export const webhookSecretFromRow = (row: Selectable<WebhookSecretsTable>): WebhookSecretRecord => ({
  id: row.id,
  accountId: row.account_id,
  secret: row.secret,
  createdAt: integer(row.created_at),
  expiresAt: nullableInteger(row.expires_at),
});

export const webhookSecretToRow = (secret: WebhookSecretRecord): Insertable<WebhookSecretsTable> => ({
  id: secret.id,
  account_id: secret.accountId,
  secret: secret.secret,
  created_at: secret.createdAt,
  expires_at: secret.expiresAt,
});

/**
 * A task from its row. A small request is in the row (`request`); a large one
 * lives in `task_requests`, and comes either joined (`external_request`) or,
 * when the store can (SQLite), from `loadRequest` on first use: a status read
 * of an image task never copies megabytes it does not show.
 */
export function taskFromRow(
  row: Selectable<TasksTable> & { external_request?: string | null },
  loadRequest?: (taskId: string) => string | undefined,
): TaskRecord {
  const task = taskFieldsFromRow(row);
  const text = row.request ?? row.external_request;
  if (text != null) {
    task.request = JSON.parse(text) as TaskRecord["request"];
    return task;
  }
  if (!loadRequest) throw new Error(`task ${row.id} was read without its request and nothing can load it`);
  let request: TaskRecord["request"] | undefined;
  return Object.defineProperty(task, "request", {
    enumerable: true,
    configurable: true,
    get() {
      if (request === undefined) {
        const stored = loadRequest(row.id);
        if (stored === undefined) throw new Error(`task ${row.id} has no stored request`);
        request = JSON.parse(stored) as TaskRecord["request"];
      }
      return request;
    },
    set(value: TaskRecord["request"]) {
      request = value;
    },
  });
}

const taskFieldsFromRow = (row: Selectable<TasksTable>): TaskRecord => ({
  id: row.id,
  accountId: row.account_id,
  state: row.state as TaskRecord["state"],
  failureCode: row.failure_code as TaskRecord["failureCode"],
  // Set by taskFromRow, eagerly or on first use; a placeholder keeps the object's shape.
  request: undefined as unknown as TaskRecord["request"],
  modelType: row.model_type as TaskRecord["modelType"],
  aspectRatio: row.aspect_ratio as TaskRecord["aspectRatio"],
  callbackUrl: row.callback_url,
  scenario: JSON.parse(row.scenario) as TaskRecord["scenario"],
  cost: integer(row.cost),
  refundedAt: nullableInteger(row.refunded_at),
  progress: integer(row.progress),
  createdAt: integer(row.created_at),
  updatedAt: integer(row.updated_at),
  startedAt: nullableInteger(row.started_at),
  finishAt: nullableInteger(row.finish_at),
  deadlineAt: integer(row.deadline_at),
  completedAt: nullableInteger(row.completed_at),
  videoKey: row.video_key,
  leaseOwner: row.lease_owner,
  leaseExpiresAt: nullableInteger(row.lease_expires_at),
  // Absent rather than null when there is none, like a record the engine made without tracing.
  ...(row.trace_parent ? { traceParent: row.trace_parent } : {}),
});

/**
 * `columns`, which must name every column of `Table`: a column added to the table and not to the
 * list fails the build, naming it. An INSERT built from such a list would otherwise leave the new
 * column out of every row without a word.
 */
const everyColumnOf =
  <Table>() =>
  <const Listed extends readonly (keyof Table)[]>(
    columns: Listed,
    ..._complete: [Exclude<keyof Table, Listed[number]>] extends [never]
      ? []
      : [missing: Exclude<keyof Table, Listed[number]>]
  ): Listed =>
    columns;

/**
 * Every column of a task's row, sorted: what a task's INSERT names, in this order. Each row of
 * `taskToRow` has them all, so a create need not list and sort its row's keys to find them.
 */
export const TASK_ROW_COLUMNS = everyColumnOf<TasksTable>()([
  "account_id",
  "aspect_ratio",
  "callback_url",
  "completed_at",
  "cost",
  "created_at",
  "deadline_at",
  "failure_code",
  "finish_at",
  "id",
  "lease_expires_at",
  "lease_owner",
  "model_type",
  "progress",
  "refunded_at",
  "request",
  "scenario",
  "scenario_fail",
  "started_at",
  "state",
  "trace_parent",
  "updated_at",
  "video_key",
]);

/** Every column of a ledger entry's row, sorted, as `TASK_ROW_COLUMNS` for tasks. */
export const LEDGER_ROW_COLUMNS = everyColumnOf<LedgerEntriesTable>()([
  "account_id",
  "created_at",
  "delta",
  "id",
  "reason",
  "task_id",
]);

/**
 * A new task's row, every column but the request (where it goes is the store's choice). Written
 * out whole rather than over `taskPatchToRow`: a create builds one, and the patch's copy and
 * second JSON of the scenario were a third of its row building. Its account is given apart, as
 * a key-checked create knows it only in its statement: a copy of the task to add it cost that
 * create 23 fields' worth of garbage.
 */
export const taskToRow = (
  task: Omit<TaskRecord, "accountId">,
  accountId: string,
): Omit<Required<Insertable<TasksTable>>, "request"> => ({
  id: task.id,
  account_id: accountId,
  state: task.state,
  failure_code: task.failureCode,
  model_type: task.modelType,
  aspect_ratio: task.aspectRatio,
  callback_url: task.callbackUrl,
  scenario: JSON.stringify(task.scenario),
  scenario_fail: task.scenario.fail ?? null,
  cost: task.cost,
  refunded_at: task.refundedAt,
  progress: task.progress,
  created_at: task.createdAt,
  updated_at: task.updatedAt,
  started_at: task.startedAt,
  finish_at: task.finishAt,
  deadline_at: task.deadlineAt,
  completed_at: task.completedAt,
  video_key: task.videoKey,
  lease_owner: task.leaseOwner,
  lease_expires_at: task.leaseExpiresAt,
  trace_parent: task.traceParent ?? null,
});

/** The fields `Store.transitionTask` may change: everything but the identity and the request. */
export type TaskPatch = Partial<Omit<TaskRecord, "id" | "accountId" | "request">>;

/** Maps only the fields present, so a patch never clears a column it does not name. */
export function taskPatchToRow(patch: TaskPatch): Updateable<TasksTable> {
  const row: Updateable<TasksTable> = {};
  if (patch.state !== undefined) row.state = patch.state;
  if (patch.failureCode !== undefined) row.failure_code = patch.failureCode;
  if (patch.modelType !== undefined) row.model_type = patch.modelType;
  if (patch.aspectRatio !== undefined) row.aspect_ratio = patch.aspectRatio;
  if (patch.callbackUrl !== undefined) row.callback_url = patch.callbackUrl;
  if (patch.scenario !== undefined) {
    row.scenario = JSON.stringify(patch.scenario);
    row.scenario_fail = patch.scenario.fail ?? null;
  }
  if (patch.cost !== undefined) row.cost = patch.cost;
  if (patch.refundedAt !== undefined) row.refunded_at = patch.refundedAt;
  if (patch.progress !== undefined) row.progress = patch.progress;
  if (patch.createdAt !== undefined) row.created_at = patch.createdAt;
  if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
  if (patch.startedAt !== undefined) row.started_at = patch.startedAt;
  if (patch.finishAt !== undefined) row.finish_at = patch.finishAt;
  if (patch.deadlineAt !== undefined) row.deadline_at = patch.deadlineAt;
  if (patch.completedAt !== undefined) row.completed_at = patch.completedAt;
  if (patch.videoKey !== undefined) row.video_key = patch.videoKey;
  if (patch.leaseOwner !== undefined) row.lease_owner = patch.leaseOwner;
  if (patch.leaseExpiresAt !== undefined) row.lease_expires_at = patch.leaseExpiresAt;
  return row;
}

export const idempotencyFromRow = (row: Selectable<IdempotencyKeysTable>): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  requestHash: row.request_hash,
  state: row.state as IdempotencyRecord["state"],
  responseStatus: nullableInteger(row.response_status),
  responseBody: row.response_body,
  createdAt: integer(row.created_at),
  expiresAt: integer(row.expires_at),
});

export const idempotencyToRow = (record: IdempotencyRecord): Insertable<IdempotencyKeysTable> => ({
  account_id: record.accountId,
  key: record.key,
  request_hash: record.requestHash,
  state: record.state,
  response_status: record.responseStatus,
  response_body: record.responseBody,
  created_at: record.createdAt,
  expires_at: record.expiresAt,
});

export const webhookEventFromRow = (row: Selectable<WebhookEventsTable>): WebhookEventRecord => ({
  id: row.id,
  taskId: row.task_id,
  accountId: row.account_id,
  url: row.url,
  payload: row.payload,
  state: row.state as WebhookEventRecord["state"],
  attemptCount: integer(row.attempt_count),
  nextAttemptAt: nullableInteger(row.next_attempt_at),
  createdAt: integer(row.created_at),
  leaseOwner: row.lease_owner,
  leaseExpiresAt: nullableInteger(row.lease_expires_at),
  ...(row.trace_parent ? { traceParent: row.trace_parent } : {}),
});

export const webhookEventToRow = (event: WebhookEventRecord): Insertable<WebhookEventsTable> => ({
  id: event.id,
  task_id: event.taskId,
  account_id: event.accountId,
  url: event.url,
  payload: event.payload,
  state: event.state,
  attempt_count: event.attemptCount,
  next_attempt_at: event.nextAttemptAt,
  created_at: event.createdAt,
  lease_owner: event.leaseOwner,
  lease_expires_at: event.leaseExpiresAt,
  trace_parent: event.traceParent ?? null,
});

export const webhookAttemptFromRow = (row: Selectable<WebhookAttemptsTable>): WebhookAttemptRecord => ({
  eventId: row.event_id,
  attempt: integer(row.attempt),
  startedAt: integer(row.started_at),
  durationMs: integer(row.duration_ms),
  statusCode: nullableInteger(row.status_code),
  error: row.error,
  responseExcerpt: row.response_excerpt,
  requestHeaders: requestHeadersFromText(row.request_headers),
});

export const webhookAttemptToRow = (attempt: WebhookAttemptRecord): Insertable<WebhookAttemptsTable> => ({
  event_id: attempt.eventId,
  attempt: attempt.attempt,
  started_at: attempt.startedAt,
  duration_ms: attempt.durationMs,
  status_code: attempt.statusCode,
  error: attempt.error,
  response_excerpt: attempt.responseExcerpt ?? null,
  request_headers: attempt.requestHeaders ? JSON.stringify(attempt.requestHeaders) : null,
});

/** The signature headers an attempt was sent with, stored as JSON (null before migration 0012). */
export function requestHeadersFromText(text: string | null): Record<string, string> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, string>);
}
