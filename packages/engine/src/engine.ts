import type { Hono } from "hono";
import { type AdminService, createAdminService } from "./admin/admin-service.js";
import type { Clock } from "./clock.js";
import { type EngineConfig, type EngineConfigInput, resolveEngineConfig } from "./config.js";
import { createHttpApp } from "./http/app.js";
import type { EngineEnv } from "./http/engine-env.js";
import { FailedAuthLimit } from "./http/failed-auth-limit.js";
import { type RateLimiterFactory, TokenBucketLimiter } from "./http/rate-limiter.js";
import { cryptoRandomUUID, type RandomUUID } from "./ids.js";
import { KeyUsageRecorder } from "./keys/key-usage.js";
import type { EngineActivity, EngineObserver } from "./observer.js";
import type { Renderer, Store, TaskRecord, VideoStorage, WebhookSender } from "./ports.js";
import { type ForcedOutcome, forceTaskOutcome } from "./tasks/force-outcome.js";
import { taskEndedEvent } from "./tasks/lifecycle.js";
import { presetTask, type TaskPreset } from "./tasks/preset-task.js";
import { TaskWorker, type TaskWorkReport } from "./tasks/task-worker.js";
import { WebhookDispatcher } from "./webhooks/webhook-dispatcher.js";

/** The ports and settings an engine runs on. */
export interface EngineOptions {
  store: Store;
  /** Service time: generation, deadlines, retry spacing. */
  clock: Clock;
  /**
   * Real time, for what must not follow a sped-up or virtual service clock:
   * `webhook-timestamp` (receivers check it against their own clock) and
   * rate-limit refills. Default: `Date.now()`.
   */
  wallClock?: Clock;
  renderer: Renderer;
  videoStorage: VideoStorage;
  sender: WebhookSender;
  config?: EngineConfigInput;
  /** Lease owner name of this engine; default `worker_<uuid>`. */
  workerId?: string;
  /**
   * Source of task ids, webhook ids (`msg_<hex>`) and request ids (`req_<uuid>`);
   * default `crypto.randomUUID`. Must return UUID v4 strings that never repeat
   * within the store: the msw mock injects a seeded one so a test sees the
   * same task ids in every run.
   */
  randomUUID?: RandomUUID;
  /**
   * Where the rate-limit buckets live; default: this process's memory. Embedders
   * running several API processes pass buckets they share (one per key for
   * the whole cluster).
   */
  rateLimiter?: RateLimiterFactory;
  /**
   * Called when a render this engine started ends and at least half of the
   * render slots (`workerConcurrency`) are free: an embedder that ticks on a timer
   * can tick now, to fill them, rather than at the end of its interval.
   */
  onRenderEnded?: () => void;
  /**
   * Told what happens (tasks created, claimed and ended, lease takeovers,
   * webhook attempts) and asked for the trace context a new task keeps: the
   * port an embedder's metrics and tracing plug into. Default: nobody listens.
   */
  observer?: EngineObserver;
}

/** What one `tick()` did, at which service time. */
export interface TickReport extends TaskWorkReport {
  now: number;
  webhooksStarted: number;
}

/** A running engine: the HTTP app and the due-work driver. */
export interface Engine {
  /** The Hono app; embedders serve `app.fetch`. */
  app: Hono<EngineEnv>;
  /** The resolved configuration. */
  config: EngineConfig;
  /**
   * Does all work due at `clock.now()`: leases, claims, render starts,
   * completions, scenario failures, timeouts, webhook attempts. Renders and
   * deliveries it starts run on in the background; it does not wait for them.
   */
  tick(): Promise<TickReport>;
  /** Resolves when no render or webhook delivery started by this engine is in flight. */
  idle(): Promise<void>;
  /**
   * Writes the API keys' "last used" times noted since the last write (one
   * transaction, coalesced per key); `tick()` does it too. For embedders whose
   * process answers requests but never ticks (an API-only process).
   */
  flushKeyUsage(): Promise<number>;
  /**
   * Ticks and waits for what each tick started, again and again, until a tick
   * finds nothing to do: after it, the store reflects everything due at
   * `clock.now()`. For tests and the mock (renders and sends there are quick).
   */
  runUntilIdle(): Promise<TickReport>;
  /** Graceful shutdown: claims nothing more, aborts renders and deliveries, releases leases. */
  drain(): Promise<void>;
  /**
   * Ends a queued or processing task now, as the service would have: completed
   * (rendered first if it has no video yet), failed with `UNSAFE_CONTENT` (no
   * refund) or `GENERATION_FAILED` (refunded), or timed out (refunded). The
   * same compare-and-set, refund and webhook outbox as the worker's own
   * transitions; the webhook goes out at the next tick. Rejects with a
   * `ForceOutcomeError` when there is no such task or it has already ended.
   * For mocks and tests.
   *
   * @example
   * await engine.forceOutcome(taskId, { fail: "UNSAFE_CONTENT" });
   * await engine.runUntilIdle(); // delivers the webhook
   */
  forceOutcome(taskId: string, outcome: ForcedOutcome): Promise<TaskRecord>;
  /**
   * Sets how a queued or processing task's generation goes: its scenario (a failure, a
   * timeout, a delay, in place of what its prompt asked) and the video it ends with (no render
   * then). Its generation time follows the scenario, from its creation. Resolves false when
   * there is no such task or it has ended. For mocks and tests: the msw mock gives each task it
   * creates the fixture video and the scenario a test queued for it.
   *
   * @example
   * await engine.presetTask(taskId, { scenario: { delayMs: 5_000 }, videoKey: "videos/fixture.mp4" });
   */
  presetTask(taskId: string, preset: TaskPreset): Promise<boolean>;
  /** What is in flight in this engine now (render slots busy, leases held, webhook attempts): cheap, no I/O. */
  activity(): EngineActivity;
  admin: AdminService;
}

const IDEMPOTENCY_SWEEP_MS = 60_000;
const MAX_SETTLE_ROUNDS = 100;

/**
 * Builds the engine over its ports.
 *
 * @example
 * const engine = createEngine({ store: createMemoryStore(), clock: manualClock(), renderer, videoStorage, sender });
 * const { apiKey } = await engine.admin.bootstrap();
 * const response = await engine.app.fetch(new Request("http://localhost/api/gen/account", {
 *   headers: { authorization: `Bearer ${apiKey}` },
 * }));
 */
export function createEngine(options: EngineOptions): Engine {
  const config = resolveEngineConfig(options.config);
  const { store, clock } = options;
  const wallClock = options.wallClock ?? { now: () => Date.now() };
  const randomUUID = options.randomUUID ?? cryptoRandomUUID;
  const workerId = options.workerId ?? `worker_${crypto.randomUUID()}`;
  const limiterOf: RateLimiterFactory =
    options.rateLimiter ?? ((name, perMinute) => new TokenBucketLimiter(name, perMinute, wallClock));
  const limiters = {
    create: limiterOf("create", config.rateLimits.createsPerMinute),
    read: limiterOf("read", config.rateLimits.readsPerMinute),
  };
  const failedAuth =
    config.rateLimits.enabled && config.clientAddress
      ? new FailedAuthLimit(config.rateLimits.failedAuthPerMinute, wallClock)
      : undefined;
  const keyUsage = new KeyUsageRecorder();
  const observer = options.observer ?? {};
  const app = createHttpApp({
    observer,
    keyUsage,
    store,
    clock,
    videoStorage: options.videoStorage,
    config,
    limiters,
    failedAuth,
    randomUUID,
  });
  const tasks = new TaskWorker({
    store,
    clock,
    renderer: options.renderer,
    videoStorage: options.videoStorage,
    config,
    workerId,
    randomUUID,
    observer,
    ...(options.onRenderEnded ? { onRenderEnded: options.onRenderEnded } : {}),
  });
  const webhooks = new WebhookDispatcher({
    store,
    clock,
    wallClock,
    sender: options.sender,
    config,
    workerId,
    observer,
  });
  let draining = false;
  let lastSweep = Number.NEGATIVE_INFINITY;

  async function sweepIdempotency(now: number) {
    if (now - lastSweep < IDEMPOTENCY_SWEEP_MS) return;
    lastSweep = now;
    await store.transaction((tx) => tx.deleteExpiredIdempotency(now));
  }

  async function tick(settle: boolean): Promise<TickReport> {
    const now = clock.now();
    const started = await tasks.startDue(now);
    if (settle) await tasks.idle();
    const ended = await tasks.finishDue(clock.now());
    const webhooksStarted = draining ? 0 : await webhooks.dispatchDue(clock.now());
    if (settle) await webhooks.idle();
    await sweepIdempotency(now);
    await keyUsage.flush(store);
    return { now, ...started, ...ended, webhooksStarted };
  }

  const idle = () => Promise.all([tasks.idle(), webhooks.idle()]).then(() => undefined);

  return {
    app,
    config,
    tick: () => tick(false),
    idle,
    flushKeyUsage: () => keyUsage.flush(store),
    async runUntilIdle() {
      const total: TickReport = {
        now: clock.now(),
        claimed: 0,
        rendersStarted: 0,
        released: 0,
        completed: 0,
        failed: 0,
        timedOut: 0,
        webhooksStarted: 0,
      };
      for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
        const report = await tick(true);
        let busy = false;
        for (const key of Object.keys(total) as (keyof TickReport)[]) {
          if (key === "now") continue;
          total[key] += report[key];
          busy ||= report[key] > 0;
        }
        total.now = report.now;
        if (!busy) break;
      }
      return total;
    },
    async drain() {
      draining = true;
      await Promise.all([tasks.drain(), webhooks.drain()]);
      await keyUsage.flush(store);
    },
    async forceOutcome(taskId, outcome) {
      const deps = {
        store,
        clock,
        renderer: options.renderer,
        videoStorage: options.videoStorage,
        randomUUID,
      };
      const ended = await forceTaskOutcome(deps, taskId, outcome);
      tasks.abandon(taskId, "outcome forced");
      const code = ended.state === "completed" ? "completed" : (ended.failureCode ?? "GENERATION_FAILED");
      observer.taskEnded?.(taskEndedEvent(ended, code, ended.completedAt ?? clock.now()));
      return ended;
    },
    presetTask: (taskId, preset) => presetTask(store, config.generationMs, taskId, preset),
    activity: () => ({
      renders: tasks.activeRenders,
      leasesHeld: tasks.leasesHeld,
      webhookAttempts: webhooks.inFlight().total,
    }),
    admin: createAdminService(store, clock),
  };
}
