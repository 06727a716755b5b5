/**
 * The engine's ports: the records it keeps and the interfaces its embedders
 * implement. The reference server provides SQLite/PostgreSQL stores, a real
 * renderer and an SSRF-safe sender; the msw mock provides the in-memory store,
 * a fixture renderer and a fetch-based sender. All times are service-time
 * milliseconds since the epoch (see `Clock`).
 */
import type {
  AspectRatio,
  FailureCode,
  FinishFailureCode,
  GenerationRequest,
  ModelType,
} from "@genvideo/schema";

export type TaskState = "queued" | "processing" | "completed" | "failed";

/**
 * A task's scenario: the outcome a prompt marker (or a mock control) forces; absent means a normal
 * render. "Scenario" means this alone in the code; the msw parity test's rows are cases, and the
 * benchmarks run workloads.
 */
export interface TaskScenario {
  fail?: FinishFailureCode;
  /** Never finishes: the deadline turns it into TIMEOUT. */
  timeout?: boolean;
  /** Service time the generation takes, overriding the default. */
  delayMs?: number;
}

export interface AccountRecord {
  id: string;
  name: string;
  credits: number;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  /** The first characters of the key, safe to show in listings (`gen_sk_AbCd`). */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
  /** Set at creation (an optional expiry) or by a rotation's overlap; refused from then on. */
  expiresAt: number | null;
  /** A label its owner chose (dashboard, CLI), shown in listings; empty when none. */
  name: string;
  /**
   * Last authenticated use. Recorded coalesced, not per request (see
   * `LAST_USED_RESOLUTION_MS`): it may lag a use by that much.
   */
  lastUsedAt: number | null;
}

export interface WebhookSecretRecord {
  id: string;
  accountId: string;
  /** `whsec_<base64>`. Needed in clear to sign; never logged, never in a response. */
  secret: string;
  createdAt: number;
  /** Rotation overlap: the old secret still signs until then. */
  expiresAt: number | null;
}

export interface TaskRecord {
  id: string;
  accountId: string;
  state: TaskState;
  failureCode: FailureCode | null;
  /** The validated request as received (images included). */
  request: GenerationRequest;
  modelType: ModelType;
  aspectRatio: AspectRatio;
  callbackUrl: string | null;
  scenario: TaskScenario;
  /** Credits charged at creation; refunded at most once (`refundedAt`). */
  cost: number;
  refundedAt: number | null;
  progress: number;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  /**
   * When generation is due to end (service time): set at creation, cleared when
   * a task goes back to the queue, set again by the claim that takes it.
   */
  finishAt: number | null;
  /** createdAt + 10 minutes: past it, a task not yet terminal becomes TIMEOUT. */
  deadlineAt: number;
  completedAt: number | null;
  /** Storage key of the rendered video, once there is one. */
  videoKey: string | null;
  /** Worker lease: who is rendering it and until when the claim holds. */
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /**
   * The W3C `traceparent` of the request that created the task, when tracing
   * was on: its render and webhook attempts continue that trace. Set at
   * creation only; absent or null otherwise.
   */
  traceParent?: string | null;
}

/**
 * `carried_forward`: one entry per account holding the sum of the entries of
 * tasks that history retention deleted (`StoreTransaction.deleteEndedTasks`),
 * so that the ledger still adds up to the balance.
 */
export type LedgerReason = "grant" | "charge" | "refund" | "carried_forward";

export interface LedgerEntry {
  id: string;
  accountId: string;
  taskId: string | null;
  /** Positive for grants and refunds, negative for charges. */
  delta: number;
  reason: LedgerReason;
  createdAt: number;
}

/** The response a create stores under its Idempotency-Key, to replay. */
export interface IdempotencyResponse {
  key: string;
  status: number;
  body: string;
}

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  /** SHA-256 of the canonical request, so a different body is told apart (422). */
  requestHash: string;
  /** `in_progress` while the first request runs (409 to others). */
  state: "in_progress" | "done";
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
  expiresAt: number;
}

/** A task history retention deleted: kept a while longer, to tell its owner why it is gone. */
export interface RetiredTask {
  id: string;
  accountId: string;
  /** When it ended (its last `updatedAt`). */
  endedAt: number;
}

/** What one batch of history retention deleted. */
export interface HistoryDeletion {
  /** Ended tasks, each with its stored request, webhook events and attempts. */
  tasks: number;
  /** Their ledger entries, folded into their accounts' carried-forward entries. */
  ledgerEntries: number;
  webhookEvents: number;
  webhookAttempts: number;
  /** Records of tasks deleted earlier (`RetiredTask`), forgotten. */
  forgotten: number;
}

export type WebhookEventState = "pending" | "delivered" | "failed";

export interface WebhookEventRecord {
  /** The `webhook-id`: stable across every attempt of this event. */
  id: string;
  taskId: string;
  accountId: string;
  url: string;
  /** Exactly the bytes that are signed and sent. */
  payload: string;
  state: WebhookEventState;
  attemptCount: number;
  nextAttemptAt: number | null;
  createdAt: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** The task's `traceParent`, copied when the event is written. */
  traceParent?: string | null;
}

export interface WebhookAttemptRecord {
  eventId: string;
  attempt: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /**
   * The start of the receiver's response body as text (about 1 KiB, decoded
   * leniently, control characters removed); null when there was none. Stores
   * always return it (null when it was not recorded).
   */
  responseExcerpt?: string | null;
  /**
   * The signature headers the attempt was sent with (`webhook-id`,
   * `webhook-timestamp`, `webhook-signature`); the body is the event's
   * payload. Null when nothing was sent (no live secret) or not recorded.
   * Stores always return it.
   */
  requestHeaders?: Record<string, string> | null;
}

/** What authenticating a request needs of its key: whose it is, whether it is live, when last used. */
export type CallerKeyRecord = Pick<
  ApiKeyRecord,
  "id" | "accountId" | "hash" | "revokedAt" | "expiresAt" | "lastUsedAt"
>;

/** What a status read shows of a task (docs/api.md#task-status), and nothing it does not. */
export type TaskStatusRecord = Pick<
  TaskRecord,
  | "id"
  | "accountId"
  | "state"
  | "failureCode"
  | "progress"
  | "createdAt"
  | "updatedAt"
  | "finishAt"
  | "deadlineAt"
  | "videoKey"
>;

/**
 * A key found by its hash, and the task asked for when the key's account owns it: what a status
 * read needs of each, which a store may read alone (a full record satisfies it too).
 */
export interface KeyAndTask {
  apiKey: CallerKeyRecord;
  task: TaskStatusRecord | undefined;
}

/** One unit of work inside a transaction: every state change and its ledger entry commit together. */
export interface StoreTransaction {
  getAccount(id: string): Promise<AccountRecord | undefined>;
  getAccountByName(name: string): Promise<AccountRecord | undefined>;
  listAccounts(): Promise<AccountRecord[]>;
  insertAccount(account: AccountRecord): Promise<void>;
  /**
   * Adds `entry.delta` to the account's credits and records the entry, unless
   * that would take the balance below zero: then it changes nothing and
   * returns false (one conditional update, so concurrent charges can't overdraw).
   */
  appendLedger(entry: LedgerEntry): Promise<boolean>;
  listLedger(accountId: string): Promise<LedgerEntry[]>;

  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /**
   * The key with this hash and, in the same read, the task `taskId` when it
   * belongs to that key's account (undefined otherwise): a status read's
   * authentication and read in one statement, of each only what that read needs
   * (`KeyAndTask`). Undefined when no key has the hash.
   */
  getApiKeyAndTask(hash: string, taskId: string): Promise<KeyAndTask | undefined>;
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  updateApiKey(
    id: string,
    patch: Partial<Pick<ApiKeyRecord, "revokedAt" | "expiresAt" | "lastUsedAt">>,
  ): Promise<void>;

  listWebhookSecrets(accountId: string): Promise<WebhookSecretRecord[]>;
  insertWebhookSecret(secret: WebhookSecretRecord): Promise<void>;
  updateWebhookSecret(id: string, patch: Partial<Pick<WebhookSecretRecord, "expiresAt">>): Promise<void>;

  getTask(id: string): Promise<TaskRecord | undefined>;
  insertTask(task: TaskRecord): Promise<void>;
  /**
   * A new task with its charge: `charge.delta` added to the account's credits,
   * the ledger entry and the task, all or nothing. False (nothing written) when
   * the balance would go below zero. With `idempotency`, the in-progress record
   * of that key (the charge's account) is completed with the response in the
   * same write. One statement where the database allows it (PostgreSQL), so the
   * account's row is locked for that statement only, never across a round trip.
   */
  insertChargedTask(
    task: TaskRecord,
    charge: LedgerEntry,
    idempotency?: IdempotencyResponse,
  ): Promise<boolean>;
  /**
   * Compare-and-set: applies `patch` only while the task is in one of `from`
   * (and, when given, still leased by `leaseOwner`). Returns whether it did,
   * so exactly one of two racing transitions wins.
   */
  transitionTask(
    id: string,
    from: readonly TaskState[],
    patch: Partial<Omit<TaskRecord, "id" | "accountId" | "request">>,
    leaseOwner?: string,
  ): Promise<boolean>;
  /**
   * `transitionTask` for several tasks at once, with one `patch` but each task's own `videoKey`
   * when it names one (renders that ended together): each task changes only while it is in one
   * of `from` and, when given, still leased by `leaseOwner`, exactly as if each were its own
   * compare-and-set. Returns the ids that changed.
   */
  transitionTasks(
    tasks: readonly { id: string; videoKey?: string }[],
    from: readonly TaskState[],
    patch: Partial<Omit<TaskRecord, "id" | "accountId" | "request">>,
    leaseOwner?: string,
  ): Promise<string[]>;
  /**
   * Claims up to `limit` queued tasks (oldest first) for `owner` until `leaseExpiresAt`, moving them
   * to processing. At most `renderLimit` of them (default: `limit`) may need a render, that is have
   * no video yet and no scenario failure: the claim stops, in creation order, before the task that
   * would be one too many. So a worker with two free render slots takes a backlog of tasks that
   * need none (scenario failures, kept videos) in one statement, not two at a time.
   */
  claimQueuedTasks(
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
    renderLimit?: number,
  ): Promise<TaskRecord[]>;
  /**
   * `transitionTasks(ending.tasks, ending.from, ending.patch, owner)`, then
   * `claimQueuedTasks(owner, limit, now, leaseExpiresAt, renderLimit)`, as one write: a worker ends
   * the renders that finished and fills their slots together (PostgreSQL: one statement, where the
   * two took a round trip each). Each ending is fenced by `owner`'s lease as in `transitionTasks`.
   * Returns the ids that changed and the tasks claimed.
   */
  transitionAndClaimTasks(
    ending: {
      tasks: readonly { id: string; videoKey?: string }[];
      from: readonly TaskState[];
      patch: Partial<Omit<TaskRecord, "id" | "accountId" | "request">>;
    },
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
    renderLimit?: number,
  ): Promise<{ transitioned: string[]; claimed: TaskRecord[] }>;
  /**
   * Hands processing tasks whose lease ran out at or before `now` (their worker died or froze)
   * back to the queue, up to `limit`, the longest expired first; returns how many. The expiry is
   * part of the compare-and-set: a lease its owner renewed after another worker saw it expired
   * is live again and stays. A rendered video is kept, so the next claim needn't render again.
   */
  releaseExpiredLeases(now: number, limit: number): Promise<number>;
  /** Tasks not terminal whose deadline is at or before `now`. */
  listOverdueTasks(now: number, limit: number): Promise<TaskRecord[]>;
  /**
   * Processing tasks whose `finishAt` is at or before `now` and that are ready
   * to end: they have a rendered video (`videoKey`), or their scenario fails
   * them (`scenario.fail` set; such tasks are never rendered).
   */
  listDueCompletions(now: number, limit: number): Promise<TaskRecord[]>;
  countTasks(accountId?: string): Promise<number>;

  getIdempotency(accountId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Inserts unless a live record exists for (accountId, key), live meaning its
   * `expiresAt` is after `record.createdAt`; an expired one is replaced.
   * Returns false when a live one exists (the caller then reads it).
   */
  insertIdempotency(record: IdempotencyRecord): Promise<boolean>;
  completeIdempotency(accountId: string, key: string, status: number, body: string): Promise<void>;
  deleteIdempotency(accountId: string, key: string): Promise<void>;
  deleteExpiredIdempotency(now: number): Promise<number>;

  insertWebhookEvent(event: WebhookEventRecord): Promise<void>;
  getWebhookEvent(id: string): Promise<WebhookEventRecord | undefined>;
  listWebhookEvents(taskId: string): Promise<WebhookEventRecord[]>;
  /** Claims up to `limit` pending events due at `now` for `owner` (expired leases included). */
  claimDueWebhookEvents(
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
  ): Promise<WebhookEventRecord[]>;
  updateWebhookEvent(
    id: string,
    patch: Partial<
      Pick<WebhookEventRecord, "state" | "attemptCount" | "nextAttemptAt" | "leaseOwner" | "leaseExpiresAt">
    >,
  ): Promise<void>;
  insertWebhookAttempt(attempt: WebhookAttemptRecord): Promise<void>;
  listWebhookAttempts(eventId: string): Promise<WebhookAttemptRecord[]>;

  /**
   * History retention, one bounded batch: deletes up to `limit` tasks that
   * ended (completed or failed) before `endedBefore` and have no webhook
   * delivery pending, oldest first, with their requests, webhook events and
   * attempts, and keeps a `RetiredTask` of each. Their ledger entries are
   * folded into one entry per account (id `carried-forward:<accountId>`,
   * reason `carried_forward`, its time the newest folded entry's), so the
   * ledger still sums to the balance, which does not change. Then forgets up
   * to `limit` retired tasks that ended before `forgetBefore`.
   */
  deleteEndedTasks(endedBefore: number, forgetBefore: number, limit: number): Promise<HistoryDeletion>;
  getRetiredTask(id: string): Promise<RetiredTask | undefined>;
}

/** Hints a caller may give `Store.transaction` about its work. */
export interface TransactionOptions {
  /**
   * The work writes in one statement at most (one store call that is one
   * statement, such as `transitionTasks` or `claimQueuedTasks`), and
   * otherwise only reads. One statement is atomic on its own, and a plain
   * read sees what it would see inside a transaction (each statement its own
   * snapshot), so a store may run such work without BEGIN and COMMIT
   * (PostgreSQL: one round trip instead of three). A second write is refused
   * with an error, but the first has committed by then: give the hint only to
   * work that writes once by construction.
   */
  singleWrite?: boolean;
  /**
   * The work only reads (plain SELECTs, such as a key lookup or a status
   * read), and each read may see its own snapshot. A store may then run it
   * outside a transaction of its own (PostgreSQL: each statement in
   * autocommit, no BEGIN or COMMIT round trip); a store whose reads cost less
   * together (SQLite, which shares one read transaction among the work of a
   * turn of the event loop) may ignore it. A write is refused with an error
   * where the hint is taken.
   */
  readOnly?: boolean;
}

export interface Store {
  /**
   * Runs `work` atomically: all of it commits, or none of it does.
   *
   * A store may run `work` more than once: SQLite runs it again when another
   * process wrote between its reads and its first write, or when another
   * transaction of its group commit failed after writing; PostgreSQL after a
   * serialization failure or deadlock. So `work` must be safe to run again:
   * it only reads and writes through `tx` and computes its result from what
   * it read. Nothing else happens inside it: no HTTP response, no Hono
   * `next()`, no message sent, no timer, no change to state outside the store.
   * Do those after the transaction, from its result.
   *
   * A store that retries offers a `rehearse` option (tests turn it on): every
   * transaction's work runs once and is rolled back, then runs for real, so
   * work that is not safe to run again fails in tests, not under load.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Optional: `insertChargedTask` for whoever presents the key whose hash is
   * `keyHash`, the key checked in the same write. Only a live key at `now`
   * (not revoked, and not expired: `expiresAt` after `now`, the rule of
   * `liveCaller`) counts; the task and its charge are then its account's.
   * Unknown, revoked and expired keys alike write nothing and come back as
   * no key; a short balance writes nothing and comes back with the balance.
   * A store that offers it (PostgreSQL: one statement) makes a create without
   * an Idempotency-Key one round trip; without it the engine reads the key
   * first (`getApiKeyByHash`) and creates after, as it does for every other
   * request.
   */
  insertChargedTaskForKey?(
    keyHash: string,
    now: number,
    task: Omit<TaskRecord, "accountId">,
    charge: Omit<LedgerEntry, "accountId">,
  ): Promise<KeyCheckedCharge>;
  close(): Promise<void>;
}

/** What `Store.insertChargedTaskForKey` found and did. */
export type KeyCheckedCharge =
  /** No live key has the hash: nothing was written. */
  | { apiKey: undefined }
  /** The key was live and its account paid: the task and its charge exist. */
  | { apiKey: CallerKeyRecord; charged: true }
  /** The key was live, its account's balance (`credits`) short: nothing was written. */
  | { apiKey: CallerKeyRecord; charged: false; credits: number };

/** What a renderer is asked to make: the request plus the output geometry. */
export interface RenderJob {
  taskId: string;
  request: GenerationRequest;
  aspectRatio: AspectRatio;
  /** The creating request's trace (`TaskRecord.traceParent`), for the render's span. */
  traceParent?: string | null;
}

export interface Renderer {
  /**
   * Makes the MP4 for a task and returns its storage key. Must stop promptly
   * when `signal` aborts (the task hit its deadline); a rejection becomes
   * `GENERATION_FAILED` with a refund.
   */
  render(job: RenderJob, signal: AbortSignal): Promise<{ videoKey: string }>;
}

/** Where rendered videos live and how a client downloads them. */
export interface VideoStorage {
  /**
   * The signed `video_url` for a stored video (docs/api.md#task-status: expires, signature): the
   * URL itself when it is at hand (signed this minute already), so that a poll waits on nothing.
   */
  signedUrl(videoKey: string, taskId: string, now: number): string | Promise<string>;
}

export interface WebhookDelivery {
  url: string;
  /** Headers to send: content-type and the Standard Webhooks trio. */
  headers: Record<string, string>;
  body: string;
  /** The creating request's trace (`WebhookEventRecord.traceParent`), for the attempt's span. */
  traceParent?: string | null;
  /**
   * Asked at the moment the request would be written, after any wait for a
   * connection: false once the claim the attempt is sent under has run out,
   * and then nothing is written. A timer lags on a busy or just-woken process;
   * this reads the clock.
   */
  mayWrite?: () => boolean;
}

/**
 * Why an attempt without a response failed, for metrics: it ran out of time,
 * could not connect, or was refused by the sender's rules (a target that is
 * not public, a URL it does not accept). Absent: another error.
 */
export type WebhookFailureKind = "timeout" | "connect_error" | "refused";

/** `responseExcerpt`: the start of the response body as text, when the sender kept one. */
export type WebhookAttemptOutcome =
  | { ok: true; statusCode: number; durationMs: number; responseExcerpt?: string }
  | {
      ok: false;
      statusCode: number | null;
      error: string;
      durationMs: number;
      responseExcerpt?: string;
      failure?: WebhookFailureKind;
    };

export interface WebhookSender {
  /** One attempt: resolves with its outcome, never rejects. */
  send(delivery: WebhookDelivery, signal: AbortSignal): Promise<WebhookAttemptOutcome>;
}
