import type { Clock } from "../clock.js";
import type { EngineConfig } from "../config.js";
import { renewHalfSpentLeases } from "../leases/lease-renewal.js";
import type { EngineObserver, WebhookAttemptKind } from "../observer.js";
import type { Store, WebhookAttemptOutcome, WebhookEventRecord, WebhookSender } from "../ports.js";
import { signWebhook } from "./sign.js";

/** Real time after which a running attempt counts as stalled (its receiver is slow or dead). */
const WEBHOOK_STALLED_AFTER_MS = 1_000;
/** Stalled attempts allowed on top of `webhooks.concurrency`: sockets waiting, no work done. */
const WEBHOOK_MAX_STALLED_ATTEMPTS = 256;

export interface WebhookDispatcherDependencies {
  store: Store;
  /** Service time: due times, attempt records, retry spacing. */
  clock: Clock;
  /** Real time for `webhook-timestamp`: receivers compare it with their own clock. */
  wallClock: Clock;
  sender: WebhookSender;
  config: EngineConfig;
  workerId: string;
  /** Told of each attempt recorded. */
  observer?: EngineObserver;
  /** Monotonic real milliseconds; `performance.now` by default. Not scaled: it measures receivers. */
  realTime?: () => number;
  /** Default `WEBHOOK_STALLED_AFTER_MS`. */
  stalledAfterMs?: number;
  /** Default `WEBHOOK_MAX_STALLED_ATTEMPTS`. */
  maxStalledAttempts?: number;
}

interface RunningDelivery {
  controller: AbortController;
  promise: Promise<void>;
  /** Real time the delivery started, to tell stalled attempts from working ones. */
  startedAt: number;
  /** Service time the claim runs out, as last written. */
  leaseExpiresAt: number;
  /** Recording its outcome: its lease must not be renewed any more. */
  finishing: boolean;
}

/**
 * Delivers the outbox: claims due events with a lease, signs each attempt,
 * sends it, records the attempt and schedules the next one.
 *
 * Slow and dead receivers must not delay anybody else, with bounded memory:
 * - Claims are bounded by free slots, so pending events stay in the store,
 *   however many there are; memory grows with slots, never with the backlog.
 * - Each delivery runs on its own: one attempt never waits for another.
 * - `webhooks.concurrency` bounds the attempts that are *working*. An attempt
 *   running longer than `stalledAfterMs` (real time) waits on a receiver that
 *   is slow or dead: it costs a socket and a timer, not work, so it stops
 *   counting against that bound and a fresh slot opens for others; stalled
 *   attempts are capped at `maxStalledAttempts` on top. The sender's attempt
 *   deadline (30 s) ends every stalled attempt in the end.
 * - When a delivery ends and the last claim took every slot offered (more may
 *   be due), the freed slot is refilled at once instead of at the next tick.
 */
export class WebhookDispatcher {
  readonly #deps: WebhookDispatcherDependencies;
  readonly #realTime: () => number;
  readonly #stalledAfterMs: number;
  readonly #maxStalled: number;
  readonly #deliveries = new Map<string, RunningDelivery>();
  /** Claims run one at a time: two at once would each see the same free slots. */
  #claiming: Promise<number> = Promise.resolve(0);
  #backlogLikely = false;
  #refilling: Promise<void> | undefined;
  #draining = false;

  constructor(deps: WebhookDispatcherDependencies) {
    this.#deps = deps;
    this.#realTime = deps.realTime ?? (() => performance.now());
    this.#stalledAfterMs = deps.stalledAfterMs ?? WEBHOOK_STALLED_AFTER_MS;
    this.#maxStalled = deps.maxStalledAttempts ?? WEBHOOK_MAX_STALLED_ATTEMPTS;
  }

  /** Renews the leases of running deliveries and starts due ones; returns how many started. */
  dispatchDue(now: number): Promise<number> {
    const run = this.#claiming.then(() => this.#dispatch(now));
    this.#claiming = run.catch(() => 0);
    return run;
  }

  /** Attempts in flight, and how many of them are stalled; for tests and metrics. */
  inFlight(): { total: number; stalled: number } {
    return { total: this.#deliveries.size, stalled: this.#stalledCount() };
  }

  /** Resolves once no delivery started by this engine is in flight. */
  async idle(): Promise<void> {
    while (this.#deliveries.size > 0 || this.#refilling !== undefined)
      await Promise.all([
        ...[...this.#deliveries.values()].map((delivery) => delivery.promise),
        this.#refilling,
      ]);
  }

  /** Graceful stop: start nothing more; running attempts are aborted and their events handed back uncounted. */
  async drain(): Promise<void> {
    this.#draining = true;
    for (const delivery of this.#deliveries.values()) delivery.controller.abort(new Error("engine draining"));
    await this.idle();
  }

  async #dispatch(now: number): Promise<number> {
    const { store, workerId, config } = this.#deps;
    await this.#renewLeases(now);
    const slots = this.#freeSlots();
    if (this.#draining || slots <= 0) return 0;
    const leaseExpiresAt = now + config.webhooks.leaseMs;
    const due = await store.transaction((tx) =>
      tx.claimDueWebhookEvents(workerId, slots, now, leaseExpiresAt),
    );
    this.#backlogLikely = due.length === slots;
    for (const event of due) this.#start(event, leaseExpiresAt);
    return due.length;
  }

  /**
   * A send may outlast the lease in service time (network timeouts don't
   * scale with it), so running claims are extended once half their lease is
   * used (`renewHalfSpentLeases`).
   */
  async #renewLeases(now: number) {
    const { store, workerId, config } = this.#deps;
    const sending = [...this.#deliveries].filter(([, delivery]) => !delivery.finishing);
    await renewHalfSpentLeases(
      store,
      sending,
      now,
      config.webhooks.leaseMs,
      async (tx, id, leaseExpiresAt, delivery) => {
        // The attempt may have been recorded meanwhile: a lease on a finished claim would delay its retry.
        const current = await tx.getWebhookEvent(id);
        if (delivery.finishing || current?.state !== "pending" || current.leaseOwner !== workerId)
          return false;
        await tx.updateWebhookEvent(id, { leaseExpiresAt });
        return true;
      },
    );
  }

  #stalledCount(): number {
    const now = this.#realTime();
    let stalled = 0;
    for (const delivery of this.#deliveries.values())
      if (now - delivery.startedAt >= this.#stalledAfterMs) stalled++;
    return stalled;
  }

  #freeSlots(): number {
    const concurrency = this.#deps.config.webhooks.concurrency;
    const stalled = Math.min(this.#stalledCount(), this.#maxStalled);
    const working = this.#deliveries.size - stalled;
    return Math.min(concurrency - working, concurrency + this.#maxStalled - this.#deliveries.size);
  }

  #start(event: WebhookEventRecord, leaseExpiresAt: number) {
    const controller = new AbortController();
    // A drain that began while this claim was running: hand the event back at once, uncounted.
    if (this.#draining) controller.abort(new Error("engine draining"));
    const delivery: RunningDelivery = {
      controller,
      promise: Promise.resolve(),
      startedAt: this.#realTime(),
      leaseExpiresAt,
      finishing: false,
    };
    delivery.promise = this.#deliver(event, delivery)
      .catch((error: unknown) =>
        this.#deps.config.logger.error?.("webhook delivery crashed", {
          eventId: event.id,
          error: String(error),
        }),
      )
      .finally(() => {
        this.#deliveries.delete(event.id);
        this.#refill();
      });
    this.#deliveries.set(event.id, delivery);
  }

  /** A freed slot after a full claim: claim again now rather than at the next tick. */
  #refill() {
    if (this.#draining || !this.#backlogLikely || this.#refilling !== undefined) return;
    this.#backlogLikely = false;
    const refilling: Promise<void> = this.dispatchDue(this.#deps.clock.now())
      .then(
        () => undefined,
        (error: unknown) =>
          this.#deps.config.logger.error?.("webhook claim failed", { error: String(error) }),
      )
      .finally(() => {
        if (this.#refilling === refilling) this.#refilling = undefined;
      });
    this.#refilling = refilling;
  }

  async #deliver(event: WebhookEventRecord, delivery: RunningDelivery) {
    const { store, clock, wallClock, sender, config, workerId } = this.#deps;
    const signal = delivery.controller.signal;
    const startedAt = clock.now();
    const secrets = await store.transaction((tx) => tx.listWebhookSecrets(event.accountId));
    // Newest first; a rotated-out secret keeps signing until its overlap ends.
    const live = secrets
      .filter((secret) => secret.expiresAt === null || secret.expiresAt > startedAt)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((secret) => secret.secret);
    // A process frozen (SIGSTOP, a paused VM) between its claim and here wakes with the lease run
    // out: the event may already be another sender's, and delivered. It sends nothing and records
    // nothing; whoever claims the event next delivers it (docs/operating.md, "Crashes and freezes").
    if (clock.now() >= delivery.leaseExpiresAt) return;
    let outcome: WebhookAttemptOutcome;
    if (live.length === 0) {
      outcome = { ok: false, statusCode: null, error: "the account has no webhook secret", durationMs: 0 };
    } else {
      const timestamp = Math.floor(wallClock.now() / 1000);
      const headers = await signWebhook(event.id, timestamp, event.payload, live);
      try {
        const delivery = { url: event.url, headers: { ...headers }, body: event.payload };
        outcome = await sender.send(
          event.traceParent ? { ...delivery, traceParent: event.traceParent } : delivery,
          signal,
        );
      } catch (error) {
        // The port says send never rejects; a sender that does still counts as a failed attempt.
        outcome = { ok: false, statusCode: null, error: String(error), durationMs: 0 };
      }
    }
    delivery.finishing = true;
    const endedAt = clock.now();
    const recorded = await store.transaction(async (tx) => {
      const current = await tx.getWebhookEvent(event.id);
      if (!current || current.leaseOwner !== workerId) return undefined;
      if (this.#draining && signal.aborted) {
        await tx.updateWebhookEvent(event.id, { leaseOwner: null, leaseExpiresAt: null });
        return undefined;
      }
      const attempts = await tx.listWebhookAttempts(event.id);
      await tx.insertWebhookAttempt({
        eventId: event.id,
        attempt: attempts.length + 1,
        startedAt,
        durationMs: outcome.durationMs,
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error,
        responseExcerpt: outcome.responseExcerpt || null,
      });
      const attemptCount = current.attemptCount + 1;
      const exhausted = attemptCount >= config.webhooks.maxAttempts;
      const state = outcome.ok ? "delivered" : exhausted ? "failed" : "pending";
      await tx.updateWebhookEvent(event.id, {
        attemptCount,
        state,
        nextAttemptAt: outcome.ok || exhausted ? null : endedAt + config.webhooks.retryDelayMs,
        leaseOwner: null,
        leaseExpiresAt: null,
      });
      return state;
    });
    if (recorded !== undefined)
      this.#deps.observer?.webhookAttempt?.({
        kind: attemptKind(outcome),
        durationMs: outcome.durationMs,
        state: recorded,
      });
  }
}

/** The bounded kind of an attempt's outcome (`EngineObserver.webhookAttempt`). */
function attemptKind(outcome: WebhookAttemptOutcome): WebhookAttemptKind {
  if (outcome.ok) return "2xx";
  if (outcome.statusCode !== null) return "non_2xx";
  return outcome.failure ?? "error";
}
