import type { EngineLogger } from "../config.js";

/**
 * Expected trouble logged at warn once per episode, not once per occurrence:
 * a partition makes every delivery and every renewal fail at once, and one
 * line saying so tells an operator more than a hundred. An episode of a kind
 * starts with its first occurrence and ends, silently, at the next success
 * of that kind (`ended`); the next occurrence after that is logged again.
 */
export class TroubleLog {
  readonly #logger: EngineLogger;
  /** Occurrences so far of each kind whose episode is running. */
  readonly #running = new Map<string, number>();

  constructor(logger: EngineLogger) {
    this.#logger = logger;
  }

  /** One occurrence of `kind`; logged (`message`, `details`) when it starts an episode. */
  occurred(kind: string, message: string, details: Record<string, unknown>): void {
    const count = (this.#running.get(kind) ?? 0) + 1;
    this.#running.set(kind, count);
    if (count === 1) this.#logger.warn?.(message, details);
  }

  /** A success of `kind`: its episode, if any, is over. */
  ended(kind: string): void {
    this.#running.delete(kind);
  }
}
