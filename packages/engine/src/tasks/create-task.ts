import { type GenerationRequest, MODELS, TASK_CREATED_MESSAGE } from "@genvideo/schema";
import type { EngineConfig } from "../config.js";
import { InsufficientCreditsError } from "../credits/insufficient-credits-error.js";
import { chargeEntry } from "../credits/ledger.js";
import type { RandomUUID } from "../ids.js";
import type { CallerKeyRecord, LedgerEntry, Store, TaskRecord } from "../ports.js";
import { finishAtOf, scenarioOf } from "./scenario.js";

/** The create response (HTTP 200, docs/api.md#response). */
export interface CreateTaskBody {
  success: true;
  message: typeof TASK_CREATED_MESSAGE;
  task_id: string;
}

/** Where a create request's response is remembered, when it carried an Idempotency-Key. */
export interface IdempotencyTarget {
  key: string;
}

/** When and how a create runs: the service's now, the task's id source, the caller's trace context. */
export interface CreateContext {
  now: number;
  randomUUID: RandomUUID;
  traceParent?: string | null;
}

/**
 * Creates a queued task and charges its model's cost in one transaction: when
 * the balance is short it raises `InsufficientCreditsError` and nothing exists,
 * and a task never exists without its charge. When the
 * request carried an Idempotency-Key, the response is stored in that same
 * write, so a replay always names a task that exists.
 */
export async function createTask(
  store: Store,
  config: EngineConfig,
  accountId: string,
  request: GenerationRequest,
  context: CreateContext,
  idempotency?: IdempotencyTarget,
): Promise<CreateTaskBody> {
  const { task, charge, body } = newTask(config, request, context);
  // One write, its Idempotency-Key's response included (one statement on PostgreSQL): no BEGIN
  // and COMMIT around it, so the account's row is locked for that statement only, never across
  // a round trip that a network cut may never finish.
  const response = idempotency && { key: idempotency.key, status: 200, body: JSON.stringify(body) };
  const created = await store.transaction(
    (tx) => tx.insertChargedTask({ ...task, accountId }, { ...charge, accountId }, response),
    { singleWrite: true },
  );
  if (created) return body;
  // Refused, nothing written: the balance is read after, for the message only.
  const account = await store.transaction((tx) => tx.getAccount(accountId), { readOnly: true });
  // A missing account is a bug in the caller, not an insufficient balance.
  if (!account) throw new Error(`no account ${accountId}`);
  throw new InsufficientCreditsError(request.model_type, task.cost, account.credits);
}

/** What `createTaskForKey` found and did: the live key it found (none: nothing written), and the create's outcome. */
export type KeyCheckedCreate =
  | { apiKey: undefined }
  | { apiKey: CallerKeyRecord; body: CreateTaskBody }
  | { apiKey: CallerKeyRecord; refusal: InsufficientCreditsError };

/**
 * `createTask` for whoever presents the key whose hash is `keyHash`, on a
 * store that checks the key in the create's own write
 * (`Store.insertChargedTaskForKey`): one statement on PostgreSQL. The key's
 * verdict comes back whatever the create's outcome, so that the caller is
 * authenticated (or refused) before anything else is answered.
 */
export async function createTaskForKey(
  insertChargedTaskForKey: NonNullable<Store["insertChargedTaskForKey"]>,
  config: EngineConfig,
  keyHash: string,
  request: GenerationRequest,
  context: CreateContext,
): Promise<KeyCheckedCreate> {
  const { task, charge, body } = newTask(config, request, context);
  const outcome = await insertChargedTaskForKey(keyHash, context.now, task, charge);
  if (outcome.apiKey === undefined) return { apiKey: undefined };
  if (outcome.charged) return { apiKey: outcome.apiKey, body };
  const refusal = new InsufficientCreditsError(request.model_type, task.cost, outcome.credits);
  return { apiKey: outcome.apiKey, refusal };
}

/** A queued task for `request`, the charge of its cost and the create's answer, for an account named later. */
function newTask(
  config: EngineConfig,
  request: GenerationRequest,
  { now, randomUUID, traceParent }: CreateContext,
): { task: Omit<TaskRecord, "accountId">; charge: Omit<LedgerEntry, "accountId">; body: CreateTaskBody } {
  const cost = MODELS[request.model_type].credits;
  const scenario = scenarioOf(request.prompt, config.unsafeWords);
  const task: Omit<TaskRecord, "accountId"> = {
    id: randomUUID(),
    state: "queued",
    failureCode: null,
    request,
    modelType: request.model_type,
    aspectRatio: request.aspect_ratio,
    callbackUrl: request.callback_url ?? null,
    scenario,
    cost,
    refundedAt: null,
    progress: 0,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    // Known now (generation time runs from creation): the claim then has nothing to write here.
    finishAt: finishAtOf(now, scenario, config.generationMs),
    deadlineAt: now + config.taskDeadlineMs,
    completedAt: null,
    videoKey: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...(traceParent ? { traceParent } : {}),
  };
  const body: CreateTaskBody = { success: true, message: TASK_CREATED_MESSAGE, task_id: task.id };
  return { task, charge: chargeEntry(task.id, cost, now), body };
}
