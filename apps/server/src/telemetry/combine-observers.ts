import type { EngineObserver } from "@genvideo/engine";

/**
 * One observer that tells each of `observers` (those present) what happens.
 * A method none of them has stays absent, so the engine skips it entirely;
 * `traceParent` is asked of the first that has one.
 */
export function combineObservers(...observers: (EngineObserver | undefined)[]): EngineObserver {
  const present = observers.filter((observer) => observer !== undefined);
  const combined: EngineObserver = {};
  const events = [
    "httpRequest",
    "taskCreated",
    "taskClaimed",
    "taskEnded",
    "leasesTakenOver",
    "webhookAttempt",
  ] as const;
  for (const event of events) {
    const listeners = present.flatMap((observer) =>
      observer[event] ? [observer[event].bind(observer)] : [],
    );
    if (listeners.length === 0) continue;
    const [only] = listeners;
    (combined as Record<string, unknown>)[event] =
      listeners.length === 1
        ? only
        : (payload: never) => {
            for (const listener of listeners) (listener as (value: never) => void)(payload);
          };
  }
  const traceParent = present.find((observer) => observer.traceParent)?.traceParent;
  if (traceParent) combined.traceParent = traceParent;
  return combined;
}
