/**
 * Row shapes of the tables, as Kysely sees them. Times are integer
 * milliseconds of service time; JSON travels as text so the same migrations
 * and queries run on SQLite and PostgreSQL. Both stores read `bigint` as a
 * number (node:sqlite's INTEGER; the PostgreSQL store's parser for `int8`, in
 * postgres-store.ts); the read side still allows a string, which rows.ts's
 * `Number()` converts, for a connection without that parser.
 */
import type { ColumnType } from "kysely";

type Integer = ColumnType<number | string, number, number>;
type NullableInteger = ColumnType<number | string | null, number | null, number | null>;

export interface AccountsTable {
  id: string;
  name: string;
  credits: Integer;
  created_at: Integer;
}

export interface LedgerEntriesTable {
  id: string;
  account_id: string;
  task_id: string | null;
  delta: Integer;
  reason: string;
  created_at: Integer;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  hash: string;
  prefix: string;
  created_at: Integer;
  revoked_at: NullableInteger;
  expires_at: NullableInteger;
  /** Migration 0005. */
  name: string;
  last_used_at: NullableInteger;
}

export interface WebhookSecretsTable {
  id: string;
  account_id: string;
  secret: string;
  created_at: Integer;
  expires_at: NullableInteger;
}

export interface TasksTable {
  id: string;
  account_id: string;
  state: string;
  failure_code: string | null;
  model_type: string;
  aspect_ratio: string;
  callback_url: string | null;
  scenario: string;
  /** `scenario.fail`, copied out of the JSON so a portable query can filter on it. */
  scenario_fail: string | null;
  cost: Integer;
  refunded_at: NullableInteger;
  progress: Integer;
  created_at: Integer;
  updated_at: Integer;
  started_at: NullableInteger;
  finish_at: NullableInteger;
  deadline_at: Integer;
  completed_at: NullableInteger;
  video_key: string | null;
  lease_owner: string | null;
  lease_expires_at: NullableInteger;
  /**
   * The request as received (JSON) when it is small (`INLINE_REQUEST_BYTES`),
   * else null and the request is in `task_requests`. Last in the row, so
   * SQLite never walks it to reach another column (migration 0004).
   */
  request: string | null;
  /** The creating request's W3C `traceparent` when tracing was on (migration 0011). */
  trace_parent: string | null;
}

/** Requests at most this long (UTF-8 bytes of their JSON) stay in the task row; larger ones (images) go apart. */
export const INLINE_REQUEST_BYTES = 2048;

/** A task's request as received (JSON) when it is too large for the task row (migration 0002). */
export interface TaskRequestsTable {
  task_id: string;
  request: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  state: string;
  response_status: NullableInteger;
  response_body: string | null;
  created_at: Integer;
  expires_at: Integer;
}

export interface WebhookEventsTable {
  id: string;
  task_id: string;
  account_id: string;
  url: string;
  payload: string;
  state: string;
  attempt_count: Integer;
  next_attempt_at: NullableInteger;
  created_at: Integer;
  lease_owner: string | null;
  lease_expires_at: NullableInteger;
  /** The task's `trace_parent`, copied when the event is written (migration 0011). */
  trace_parent: string | null;
}

export interface WebhookAttemptsTable {
  event_id: string;
  attempt: Integer;
  started_at: Integer;
  duration_ms: Integer;
  status_code: NullableInteger;
  error: string | null;
  /** Added by 0008_webhook_response_excerpt. */
  response_excerpt: string | null;
  /** The signature headers sent, as JSON (0012_webhook_request_headers). */
  request_headers: string | null;
}

/** A test event sent from the dashboard and its one attempt (migration 0009). Service times. */
export interface WebhookTestEventsTable {
  id: string;
  account_id: string;
  url: string;
  payload: string;
  created_at: Integer;
  duration_ms: Integer;
  status_code: NullableInteger;
  error: string | null;
  response_excerpt: string | null;
  /** The signature headers sent, as JSON (0012_webhook_request_headers). */
  request_headers: string | null;
}

/** The server's bookkeeping that is not part of the engine's model (the service clock's high-water mark). */
export interface ServiceStateTable {
  name: string;
  value: string;
}

/** A one-time dashboard sign-in link: SHA-256 of its token (migration 0005). Wall-clock times. */
export interface DashboardSignInLinksTable {
  token_hash: string;
  account_id: string;
  created_at: Integer;
  expires_at: Integer;
  used_at: NullableInteger;
}

/** A dashboard session: SHA-256 of its cookie's token (migration 0005). Wall-clock times. */
export interface DashboardSessionsTable {
  token_hash: string;
  account_id: string;
  created_at: Integer;
  expires_at: Integer;
}

/** A key-creation form already used (migration 0010). Wall-clock time. */
export interface DashboardFormNoncesTable {
  nonce: string;
  account_id: string;
  created_at: Integer;
}

/** PostgreSQL only: rate-limit buckets shared by the API processes (migration 0007). */
export interface RateLimitBucketsTable {
  bucket: string;
  tokens: number;
  updated_at: Integer;
  allowed: boolean;
}

/** Tasks history retention deleted, until they are forgotten too (migration 0013). Service time. */
export interface RetiredTasksTable {
  id: string;
  account_id: string;
  ended_at: Integer;
}

export interface Database {
  accounts: AccountsTable;
  ledger_entries: LedgerEntriesTable;
  api_keys: ApiKeysTable;
  webhook_secrets: WebhookSecretsTable;
  tasks: TasksTable;
  task_requests: TaskRequestsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_test_events: WebhookTestEventsTable;
  service_state: ServiceStateTable;
  dashboard_sign_in_links: DashboardSignInLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_form_nonces: DashboardFormNoncesTable;
  rate_limit_buckets: RateLimitBucketsTable;
  retired_tasks: RetiredTasksTable;
}
