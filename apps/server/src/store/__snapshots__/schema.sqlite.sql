-- table accounts
CREATE TABLE "accounts" ("id" text primary key, "name" text not null unique, "credits" bigint not null, "created_at" bigint not null);

-- table api_keys
CREATE TABLE "api_keys" ("id" text primary key, "account_id" text not null references "accounts" ("id"), "hash" text not null unique, "prefix" text not null, "created_at" bigint not null, "revoked_at" bigint, "expires_at" bigint, "name" text default '' not null, "last_used_at" bigint);

-- index api_keys_account
CREATE INDEX "api_keys_account" on "api_keys" ("account_id");

-- table dashboard_form_nonces
CREATE TABLE "dashboard_form_nonces" ("nonce" text primary key, "account_id" text not null references "accounts" ("id"), "created_at" bigint not null);

-- table dashboard_sessions
CREATE TABLE "dashboard_sessions" ("token_hash" text primary key, "account_id" text not null references "accounts" ("id"), "created_at" bigint not null, "expires_at" bigint not null);

-- index dashboard_sessions_account
CREATE INDEX "dashboard_sessions_account" on "dashboard_sessions" ("account_id");

-- table dashboard_sign_in_links
CREATE TABLE "dashboard_sign_in_links" ("token_hash" text primary key, "account_id" text not null references "accounts" ("id"), "created_at" bigint not null, "expires_at" bigint not null, "used_at" bigint);

-- table genvideo_migration
CREATE TABLE "genvideo_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null);

-- table genvideo_migration_lock
CREATE TABLE "genvideo_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null);

-- table idempotency_keys
CREATE TABLE "idempotency_keys" ("account_id" text not null references "accounts" ("id"), "key" text not null, "request_hash" text not null, "state" text not null, "response_status" bigint, "response_body" text, "created_at" bigint not null, "expires_at" bigint not null, constraint "idempotency_keys_pk" primary key ("account_id", "key"));

-- index idempotency_keys_expires
CREATE INDEX "idempotency_keys_expires" on "idempotency_keys" ("expires_at");

-- table ledger_entries
CREATE TABLE "ledger_entries" ("id" text primary key, "account_id" text not null references "accounts" ("id"), "task_id" text, "delta" bigint not null, "reason" text not null, "created_at" bigint not null);

-- index ledger_entries_account_created
CREATE INDEX "ledger_entries_account_created" on "ledger_entries" ("account_id", "created_at", "id");

-- index ledger_entries_task_reason
CREATE UNIQUE INDEX "ledger_entries_task_reason" on "ledger_entries" ("task_id", "reason") where "task_id" is not null;

-- table retired_tasks
CREATE TABLE "retired_tasks" ("id" text primary key, "account_id" text not null references "accounts" ("id"), "ended_at" bigint not null);

-- index retired_tasks_ended
CREATE INDEX "retired_tasks_ended" on "retired_tasks" ("ended_at");

-- table service_state
CREATE TABLE "service_state" ("name" text primary key, "value" text not null);

-- table task_requests
CREATE TABLE "task_requests" ("task_id" text primary key references "tasks" ("id"), "request" text not null);

-- table tasks
CREATE TABLE "tasks" ("id" text primary key, "account_id" text not null references "accounts" ("id"), "state" text not null, "failure_code" text, "model_type" text not null, "aspect_ratio" text not null, "callback_url" text, "scenario" text not null, "scenario_fail" text, "cost" bigint not null, "refunded_at" bigint, "progress" bigint not null, "created_at" bigint not null, "updated_at" bigint not null, "started_at" bigint, "finish_at" bigint, "deadline_at" bigint not null, "completed_at" bigint, "video_key" text, "lease_owner" text, "lease_expires_at" bigint, "request" text, "trace_parent" text);

-- index tasks_account_created
CREATE INDEX "tasks_account_created" on "tasks" ("account_id", "created_at", "id");

-- index tasks_ended
CREATE INDEX "tasks_ended" on "tasks" ("updated_at", "id") where "state" in ('completed', 'failed');

-- index tasks_processing_finish
CREATE INDEX "tasks_processing_finish" on "tasks" ("finish_at") where "state" = 'processing';

-- index tasks_processing_lease
CREATE INDEX "tasks_processing_lease" on "tasks" ("lease_expires_at") where "state" = 'processing';

-- index tasks_queued_created
CREATE INDEX "tasks_queued_created" on "tasks" ("created_at", "id") where "state" = 'queued';

-- index tasks_unfinished_deadline
CREATE INDEX "tasks_unfinished_deadline" on "tasks" ("deadline_at") where "state" in ('queued', 'processing');

-- table webhook_attempts
CREATE TABLE "webhook_attempts" ("event_id" text not null references "webhook_events" ("id"), "attempt" bigint not null, "started_at" bigint not null, "duration_ms" bigint not null, "status_code" bigint, "error" text, "response_excerpt" text, "request_headers" text, constraint "webhook_attempts_pk" primary key ("event_id", "attempt"));

-- table webhook_events
CREATE TABLE "webhook_events" ("id" text primary key, "task_id" text not null references "tasks" ("id"), "account_id" text not null references "accounts" ("id"), "url" text not null, "payload" text not null, "state" text not null, "attempt_count" bigint not null, "next_attempt_at" bigint, "created_at" bigint not null, "lease_owner" text, "lease_expires_at" bigint, "trace_parent" text);

-- index webhook_events_account_created
CREATE INDEX "webhook_events_account_created" on "webhook_events" ("account_id", "created_at", "id");

-- index webhook_events_pending_due
CREATE INDEX "webhook_events_pending_due" on "webhook_events" ("next_attempt_at") where "state" = 'pending';

-- index webhook_events_task
CREATE INDEX "webhook_events_task" on "webhook_events" ("task_id");

-- table webhook_secrets
CREATE TABLE "webhook_secrets" ("id" text primary key, "account_id" text not null references "accounts" ("id"), "secret" text not null, "created_at" bigint not null, "expires_at" bigint);

-- index webhook_secrets_account
CREATE INDEX "webhook_secrets_account" on "webhook_secrets" ("account_id");

-- table webhook_test_events
CREATE TABLE "webhook_test_events" ("id" text primary key, "account_id" text not null references "accounts" ("id"), "url" text not null, "payload" text not null, "created_at" bigint not null, "duration_ms" bigint not null, "status_code" bigint, "error" text, "response_excerpt" text, "request_headers" text);

-- index webhook_test_events_account_created
CREATE INDEX "webhook_test_events_account_created" on "webhook_test_events" ("account_id", "created_at", "id");
