/** Records the store contract writes: one time origin, accounts, ledger entries, tasks, webhook events. */
import type {
  AccountRecord,
  LedgerEntry,
  LedgerReason,
  TaskRecord,
  WebhookEventRecord,
} from "../../ports.js";

export const T0: number = Date.UTC(2026, 0, 1);
export const MINUTE: number = 60_000;

export function account(id: string, name: string, credits: number): AccountRecord {
  return { id, name, credits, createdAt: T0 };
}

export function ledger(id: string, accountId: string, delta: number, reason: LedgerReason): LedgerEntry {
  return { id, accountId, taskId: null, delta, reason, createdAt: T0 };
}

/**
 * A queued task record of account `acc-1` with a small text request, created at
 * 2026-01-01T00:00:00Z, for store tests; `overrides` replace any field.
 */
export function taskRecord(id: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id,
    accountId: "acc-1",
    state: "queued",
    failureCode: null,
    request: { prompt: "a calm sea", model_type: "gen-3-fast", aspect_ratio: "16:9" },
    modelType: "gen-3-fast",
    aspectRatio: "16:9",
    callbackUrl: null,
    scenario: {},
    cost: 1,
    refundedAt: null,
    progress: 0,
    createdAt: T0,
    updatedAt: T0,
    startedAt: null,
    finishAt: null,
    deadlineAt: T0 + 10 * MINUTE,
    completedAt: null,
    videoKey: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...overrides,
  };
}

export function event(id: string, overrides: Partial<WebhookEventRecord> = {}): WebhookEventRecord {
  return {
    id,
    taskId: "t-w",
    accountId: "acc-1",
    url: "https://example.com/hook",
    payload: '{"success":true}',
    state: "pending",
    attemptCount: 0,
    nextAttemptAt: T0,
    createdAt: T0,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...overrides,
  };
}
