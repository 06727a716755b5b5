/**
 * The engine's observer port: what happened, for an embedder's metrics and traces.
 * The engine stays free of any metrics or tracing library; the reference
 * server implements this with prom-client and OpenTelemetry, the mock leaves
 * it out. Every method is optional and is called after the transaction it
 * reports has committed (never inside one, which a store may run twice), so
 * an event is reported once per change that happened. A method must be quick
 * and must not throw: it runs on the request or worker path.
 */
import type { FailureCode, ModelType } from "@genvideo/schema";

/** How a task ended: completed, or the failure code it ended with. */
export type TaskOutcome = "completed" | FailureCode;

/** How one webhook attempt ended, in a few bounded kinds fit for a metric label. */
export type WebhookAttemptKind = "2xx" | "non_2xx" | "timeout" | "connect_error" | "refused" | "error";

/** A task ended. Durations are service-time milliseconds (they follow `GENVIDEO_TIME_SCALE`). */
export interface TaskEndedEvent {
  outcome: TaskOutcome;
  modelType: ModelType;
  /** Creation to the end. */
  endToEndMs: number;
  /** Its render's share: the claim that took it to the end; null when it was never claimed. */
  generationMs: number | null;
  /** Whether its credits went back (the failure catalog's refunded codes). */
  refunded: boolean;
}

/** A webhook attempt was recorded. */
export interface WebhookAttemptEvent {
  kind: WebhookAttemptKind;
  /** Real milliseconds the attempt took (network time is never scaled). */
  durationMs: number;
  /** What the event is now: delivered, pending a retry, or failed for good after its last attempt. */
  state: "delivered" | "pending" | "failed";
}

/** An HTTP request the engine's app answered. */
export interface HttpRequestEvent {
  method: string;
  /**
   * The route template that matched (`/api/gen/status/:task_id`), never the
   * raw path; `unmatched` when no route did (a 404 or 405).
   */
  route: string;
  status: number;
  /** Real milliseconds. */
  durationMs: number;
}

export interface EngineObserver {
  /** The app answered a request (after the response was made). */
  httpRequest?(event: HttpRequestEvent): void;
  /** A create request made a task (after its transaction committed). */
  taskCreated?(event: { modelType: ModelType }): void;
  /** A worker claimed a queued task; `queueWaitMs` is service time from creation to this claim. */
  taskClaimed?(event: { queueWaitMs: number }): void;
  /** A task reached its terminal state; reported by whoever won the compare-and-set. */
  taskEnded?(event: TaskEndedEvent): void;
  /** Tasks whose worker's lease ran out (it died or froze) went back to the queue: taken over. */
  leasesTakenOver?(count: number): void;
  webhookAttempt?(event: WebhookAttemptEvent): void;
  /**
   * The trace context of the code running now, as a W3C `traceparent` value,
   * or null when there is none (tracing off). The engine stores it with a task
   * at creation and hands it to the renderer and the webhook sender, so the
   * work a task causes in another process continues its creator's trace.
   */
  traceParent?(): string | null;
}

/** What is in flight in one engine right now, read by an embedder at scrape time. */
export interface EngineActivity {
  /** Renders running (render slots busy, out of `workerConcurrency`). */
  renders: number;
  /** Tasks this engine holds under a lease. */
  leasesHeld: number;
  /** Webhook attempts running. */
  webhookAttempts: number;
}

/** Milliseconds from a start to `now`, or null when there was no start. */
export function elapsedSince(start: number | null, now: number): number | null {
  return start === null ? null : Math.max(0, now - start);
}
