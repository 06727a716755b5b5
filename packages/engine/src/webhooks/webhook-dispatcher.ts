import type { Clock } from "../clock.js";
import type { EngineConfig } from "../config.js";
import type { Store, WebhookAttemptOutcome, WebhookEventRecord, WebhookSender } from "../ports.js";
import { signWebhook } from "./sign.js";

export interface WebhookDispatcherDependencies {
  store: Store;
  /** Service time: due times, attempt records, retry spacing. */
  clock: Clock;
  /** Real time for `webhook-timestamp`: receivers compare it with their own clock. */
  wallClock: Clock;
  sender: WebhookSender;
  config: EngineConfig;
  workerId: string;
}

interface RunningDelivery {
  controller: AbortController;
  promise: Promise<void>;
}

/**
 * Delivers the outbox: claims due events with a lease, signs each attempt,
 * sends it, records the attempt and schedules the next one. Deliveries run in
 * the background, at most `webhooks.concurrency` at once, each on its own, so
 * a slow receiver delays nobody else.
 */
export class WebhookDispatcher {
  readonly #deps: WebhookDispatcherDependencies;
  readonly #deliveries = new Map<string, RunningDelivery>();
  #draining = false;

  constructor(deps: WebhookDispatcherDependencies) {
    this.#deps = deps;
  }

  /** Renews the leases of running deliveries and starts due ones; returns how many started. */
  async dispatchDue(now: number): Promise<number> {
    const { store, workerId, config } = this.#deps;
    const leaseExpiresAt = now + config.webhooks.leaseMs;
    if (this.#deliveries.size > 0) {
      // A send may outlast the lease in service time (network timeouts don't scale with it).
      await store.transaction(async (tx) => {
        for (const id of this.#deliveries.keys()) await tx.updateWebhookEvent(id, { leaseExpiresAt });
      });
    }
    const slots = config.webhooks.concurrency - this.#deliveries.size;
    if (this.#draining || slots <= 0) return 0;
    const due = await store.transaction((tx) =>
      tx.claimDueWebhookEvents(workerId, slots, now, leaseExpiresAt),
    );
    for (const event of due) this.#start(event);
    return due.length;
  }

  /** Resolves once no delivery started by this engine is in flight. */
  async idle(): Promise<void> {
    while (this.#deliveries.size > 0)
      await Promise.all([...this.#deliveries.values()].map((delivery) => delivery.promise));
  }

  /** Graceful stop: start nothing more; running attempts are aborted and their events handed back uncounted. */
  async drain(): Promise<void> {
    this.#draining = true;
    for (const delivery of this.#deliveries.values()) delivery.controller.abort(new Error("engine draining"));
    await this.idle();
  }

  #start(event: WebhookEventRecord) {
    const controller = new AbortController();
    const promise = this.#deliver(event, controller.signal)
      .catch((error: unknown) =>
        this.#deps.config.logger.error?.("webhook delivery crashed", {
          eventId: event.id,
          error: String(error),
        }),
      )
      .finally(() => this.#deliveries.delete(event.id));
    this.#deliveries.set(event.id, { controller, promise });
  }

  async #deliver(event: WebhookEventRecord, signal: AbortSignal) {
    const { store, clock, wallClock, sender, config, workerId } = this.#deps;
    const startedAt = clock.now();
    const secrets = await store.transaction((tx) => tx.listWebhookSecrets(event.accountId));
    // Newest first; a rotated-out secret keeps signing until its overlap ends.
    const live = secrets
      .filter((secret) => secret.expiresAt === null || secret.expiresAt > startedAt)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((secret) => secret.secret);
    let outcome: WebhookAttemptOutcome;
    if (live.length === 0) {
      outcome = { ok: false, statusCode: null, error: "the account has no webhook secret", durationMs: 0 };
    } else {
      const timestamp = Math.floor(wallClock.now() / 1000);
      const headers = await signWebhook(event.id, timestamp, event.payload, live);
      try {
        outcome = await sender.send({ url: event.url, headers: { ...headers }, body: event.payload }, signal);
      } catch (error) {
        // The port says send never rejects; a sender that does still counts as a failed attempt.
        outcome = { ok: false, statusCode: null, error: String(error), durationMs: 0 };
      }
    }
    const endedAt = clock.now();
    await store.transaction(async (tx) => {
      const current = await tx.getWebhookEvent(event.id);
      if (!current || current.leaseOwner !== workerId) return;
      if (this.#draining && signal.aborted) {
        await tx.updateWebhookEvent(event.id, { leaseOwner: null, leaseExpiresAt: null });
        return;
      }
      const attempts = await tx.listWebhookAttempts(event.id);
      await tx.insertWebhookAttempt({
        eventId: event.id,
        attempt: attempts.length + 1,
        startedAt,
        durationMs: outcome.durationMs,
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error,
      });
      const attemptCount = current.attemptCount + 1;
      const exhausted = attemptCount >= config.webhooks.maxAttempts;
      await tx.updateWebhookEvent(event.id, {
        attemptCount,
        state: outcome.ok ? "delivered" : exhausted ? "failed" : "pending",
        nextAttemptAt: outcome.ok || exhausted ? null : endedAt + config.webhooks.retryDelayMs,
        leaseOwner: null,
        leaseExpiresAt: null,
      });
    });
  }
}
