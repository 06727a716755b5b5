import { signWebhook } from "@genvideo/schema";
import type { Clock } from "../clock.js";
import type { EngineConfig } from "../config.js";
import { liveWebhookSecrets } from "../keys/webhook-secret.js";
import { LeaseDeadline } from "../leases/lease-deadline.js";
import { renewHalfSpentLeases } from "../leases/lease-renewal.js";
import { TroubleLog } from "../leases/trouble-log.js";
import type { EngineObserver, WebhookAttemptKind } from "../observer.js";
import type { Store, WebhookAttemptOutcome, WebhookEventRecord, WebhookSender } from "../ports.js";

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
  /** The claim, as last written: aborts what is still in flight when it runs out. */
  lease: LeaseDeadline;
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
  /** Service time of the last read of the outbox (see `webhooks.claimIntervalMs`). */
  #lastClaimAt = Number.NEGATIVE_INFINITY;
  #refilling: Promise<void> | undefined;
  #draining = false;
  readonly #trouble: TroubleLog;

  constructor(deps: WebhookDispatcherDependencies) {
    this.#deps = deps;
    this.#trouble = new TroubleLog(deps.config.logger);
    this.#realTime = deps.realTime ?? (() => performance.now());
    this.#stalledAfterMs = deps.stalledAfterMs ?? WEBHOOK_STALLED_AFTER_MS;
    this.#maxStalled = deps.maxStalledAttempts ?? WEBHOOK_MAX_STALLED_ATTEMPTS;
  }

  /** Renews the leases of running deliveries and starts due ones; returns how many started. */
  dispatchDue(now: number): Promise<number> {
    return this.#dispatchDue(now, false);
  }

  /** `dispatchDue`; `refill`: a slot freed after a full claim, claimed whatever `claimIntervalMs` says. */
  #dispatchDue(now: number, refill: boolean): Promise<number> {
    const run = this.#claiming.then(() => this.#dispatch(now, refill));
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

  async #dispatch(now: number, refill: boolean): Promise<number> {
    const { store, workerId, config } = this.#deps;
    // A clock moved by hand sets no timers: claims that ran out by its time end here.
    for (const delivery of this.#deliveries.values()) delivery.lease.check(now);
    await this.#renewLeases(now);
    const slots = this.#freeSlots();
    if (this.#draining || slots <= 0) return 0;
    // Read lately and nothing left over then: not again this tick (a clock set back reads at once).
    const readLately = now >= this.#lastClaimAt && now - this.#lastClaimAt < config.webhooks.claimIntervalMs;
    if (readLately && !refill && !this.#backlogLikely) return 0;
    this.#lastClaimAt = now;
    const leaseExpiresAt = now + config.webhooks.leaseMs;
    const due = await store.transaction((tx) =>
      tx.claimDueWebhookEvents(workerId, slots, now, leaseExpiresAt),
    );
    this.#trouble.ended("claiming");
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
    try {
      await renewHalfSpentLeases(
        store,
        sending.map(([id, delivery]) => [id, delivery.lease] as const),
        now,
        config.webhooks.leaseMs,
        async (tx, id, leaseExpiresAt) => {
          // The attempt may have been recorded meanwhile: a lease on a finished claim would delay its retry.
          const current = await tx.getWebhookEvent(id);
          if (this.#deliveries.get(id)?.finishing !== false) return false;
          if (current?.state !== "pending" || current.leaseOwner !== workerId) return false;
          await tx.updateWebhookEvent(id, { leaseExpiresAt });
          return true;
        },
      );
      this.#trouble.ended("renewal");
    } catch (error) {
      this.#trouble.occurred(
        "renewal",
        "webhook claims not renewed: the database did not answer; attempts still waiting stop when their claim runs out",
        { deliveries: sending.length, error: String(error) },
      );
      throw error;
    }
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
    const { clock, config } = this.#deps;
    const controller = new AbortController();
    // A drain that began while this claim was running: hand the event back at once, uncounted.
    if (this.#draining) controller.abort(new Error("engine draining"));
    const delivery: RunningDelivery = {
      controller,
      promise: Promise.resolve(),
      startedAt: this.#realTime(),
      lease: new LeaseDeadline(clock, leaseExpiresAt),
      finishing: false,
    };
    delivery.promise = this.#deliver(event, delivery)
      .catch((error: unknown) => {
        // The database failing under a claim that ran out meanwhile (PostgreSQL ends a session left
        // idle in a transaction for a lease) is the same episode as the claim lost.
        if (delivery.lease.check()) this.#claimLost(event, String(error));
        else config.logger.error?.("webhook delivery crashed", { eventId: event.id, error: String(error) });
      })
      .finally(() => {
        delivery.lease.dispose();
        this.#deliveries.delete(event.id);
        this.#refill();
      });
    this.#deliveries.set(event.id, delivery);
  }

  /** A freed slot after a full claim: claim again now rather than at the next tick. */
  #refill() {
    if (this.#draining || !this.#backlogLikely || this.#refilling !== undefined) return;
    this.#backlogLikely = false;
    const refilling: Promise<void> = this.#dispatchDue(this.#deps.clock.now(), true)
      .then(
        () => undefined,
        (error: unknown) =>
          this.#trouble.occurred("claiming", "webhook claim failed: the database did not answer", {
            error: String(error),
          }),
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
    // A rotated-out secret keeps signing until its overlap ends.
    const live = liveWebhookSecrets(secrets, startedAt).map((secret) => secret.secret);
    // A process frozen (SIGSTOP, a paused VM) between its claim and here wakes with the lease run
    // out: the event may already be another sender's, and delivered. It sends nothing and records
    // nothing; whoever claims the event next delivers it (docs/operating.md, "Crashes and freezes").
    if (delivery.lease.check()) return this.#claimLost(event, "before its attempt was sent");
    let outcome: WebhookAttemptOutcome;
    let requestHeaders: Record<string, string> | null = null;
    if (live.length === 0) {
      outcome = { ok: false, statusCode: null, error: "the account has no webhook secret", durationMs: 0 };
    } else {
      const headers = await signWebhook({
        payload: event.payload,
        secret: live,
        id: event.id,
        timestamp: wallClock.now(),
      });
      requestHeaders = { ...headers };
      try {
        // The claim's end aborts the attempt wherever it waits (a connection, DNS, connect, TLS, the
        // write, the answer): a request must not go out once another worker may hold the event.
        const request = {
          url: event.url,
          headers: { ...headers },
          body: event.payload,
          mayWrite: () => !delivery.lease.check(),
        };
        outcome = await sender.send(
          event.traceParent ? { ...request, traceParent: event.traceParent } : request,
          AbortSignal.any([signal, delivery.lease.signal]),
        );
      } catch (error) {
        // The port says send never rejects; a sender that does still counts as a failed attempt.
        outcome = { ok: false, statusCode: null, error: String(error), durationMs: 0 };
      }
    }
    delivery.finishing = true;
    // Its outcome is not ours to record: the next holder sends the event again (receivers drop repeats).
    if (delivery.lease.check()) return this.#claimLost(event, "while its attempt ran");
    const endedAt = clock.now();
    const recorded = await store.transaction(async (tx) => {
      const current = await tx.getWebhookEvent(event.id);
      if (!current || current.leaseOwner !== workerId) return "lost" as const;
      if (this.#draining && signal.aborted) {
        await tx.updateWebhookEvent(event.id, { leaseOwner: null, leaseExpiresAt: null });
        return "handed back" as const;
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
        requestHeaders,
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
    if (recorded === "lost") return this.#claimLost(event, "another worker holds it");
    this.#trouble.ended("claim");
    if (recorded !== "handed back")
      this.#deps.observer?.webhookAttempt?.({
        kind: attemptKind(outcome),
        durationMs: outcome.durationMs,
        state: recorded,
      });
  }

  #claimLost(event: WebhookEventRecord, detail: string) {
    this.#trouble.occurred(
      "claim",
      "webhook claim ran out: the attempt was stopped and is not recorded; whoever claims the event next sends it again",
      { eventId: event.id, detail },
    );
  }
}

/** The bounded kind of an attempt's outcome (`EngineObserver.webhookAttempt`). */
function attemptKind(outcome: WebhookAttemptOutcome): WebhookAttemptKind {
  if (outcome.ok) return "2xx";
  if (outcome.statusCode !== null) return "non_2xx";
  return outcome.failure ?? "error";
}
