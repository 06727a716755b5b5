/**
 * Whether this process can reach its PostgreSQL now, as episodes: one starts
 * at the first sign that the database is out of reach (a TCP handshake to it
 * unanswered, a connect that timed out or was refused, a connection lost, a
 * session it ended) and ends at the first query it answers again.
 *
 * During an episode nothing waits on the database for long: whatever asks it
 * something (a request's transaction, a rate-limit bucket, a housekeeping
 * write) gives up `patienceMs` after it began, or at once if it began longer
 * ago, with `StoreUnavailableError`, which the API answers with 503
 * `DATABASE_UNAVAILABLE` and `Retry-After`. Outside an episode nothing is cut
 * for its duration: a healthy slow query runs to its end.
 *
 * The log gets two lines per episode, at warn: one when it starts (why), one
 * when it ends (how long it lasted, how many requests were answered 503, how
 * many housekeeping runs failed). Nothing per request.
 */
import { StoreUnavailableError } from "@genvideo/engine";
import type { Logger } from "../logging/logger.js";
import { type Threaded, ThreadedList } from "../threaded-list.js";
import { databaseOutOfReach, expectedDatabaseFailure, outOfReachNow } from "./database-failure.js";

/** How long a call waits on a database in an episode before it is answered 503 (docs/operating.md). */
export const PATIENCE_IN_EPISODE_MS = 1_000;

interface Episode {
  startedAt: number;
  reason: string;
  /** Requests answered 503 during it. */
  answeredUnavailable: number;
  /** Housekeeping runs (an API process's key-usage writes, a worker's ticks) that failed during it. */
  failedHousekeeping: number;
  /** Connections dropped because they were stranded on a dead network path. */
  droppedConnections: number;
}

/** A call `serve` runs, as its work sees it. */
export interface ServedCall {
  /** Why the call was given up on (its caller has been answered with it); undefined until then. */
  readonly givenUp: StoreUnavailableError | undefined;
  /** Called once if the call is given up on, for work that can stop (a connection reset). */
  onGiveUp: (() => void) | undefined;
}

/** A call waiting on the database. */
interface Waiting extends ServedCall, Threaded<Waiting> {
  givenUp: StoreUnavailableError | undefined;
  startedAt: number;
  /** Answers the caller with a failure. */
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

export interface DatabaseReachabilityOptions {
  logger?: Logger | undefined;
  /** Default PATIENCE_IN_EPISODE_MS. */
  patienceMs?: number;
  now?: () => number;
}

export class DatabaseReachability {
  readonly #logger: Logger | undefined;
  readonly #patienceMs: number;
  readonly #now: () => number;
  #episode: Episode | undefined;
  /** When the database last answered (the `now` clock). */
  #answeredAt = Number.NEGATIVE_INFINITY;
  /** In a list, not a Set: see threaded-list.ts. */
  readonly #waiting = new ThreadedList<Waiting>();

  constructor(options: DatabaseReachabilityOptions = {}) {
    this.#logger = options.logger;
    this.#patienceMs = options.patienceMs ?? PATIENCE_IN_EPISODE_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Whether an episode is going on. */
  get outOfReach(): boolean {
    return this.#episode !== undefined;
  }

  /**
   * The database showed it is out of reach: starts an episode (one warning) unless one is going
   * on. `since`: when the wait that shows it began (a path check's handshake, a query); evidence
   * that began before the database's last answer is stale (a check begun in a cut that has
   * healed since) and starts nothing.
   */
  lost(reason: string, since?: number): void {
    if (this.#episode || (since !== undefined && since < this.#answeredAt)) return;
    this.#episode = {
      startedAt: this.#now(),
      reason,
      answeredUnavailable: 0,
      failedHousekeeping: 0,
      droppedConnections: 0,
    };
    this.#logger?.warn(
      { reason },
      "PostgreSQL out of reach: requests that need it are answered 503 DATABASE_UNAVAILABLE until it answers again",
    );
    for (const waiting of this.#waiting) this.#arm(waiting);
  }

  /** The database answered: ends the episode going on, if any, with one line saying what it cost. */
  answered(): void {
    this.#answeredAt = this.#now();
    const episode = this.#episode;
    if (!episode) return;
    this.#episode = undefined;
    for (const waiting of this.#waiting) {
      clearTimeout(waiting.timer);
      waiting.timer = undefined;
    }
    this.#logger?.warn(
      {
        reason: episode.reason,
        durationMs: Math.round(this.#now() - episode.startedAt),
        answeredUnavailable: episode.answeredUnavailable,
        failedHousekeeping: episode.failedHousekeeping,
        droppedConnections: episode.droppedConnections,
      },
      "PostgreSQL reachable again",
    );
  }

  /** A request was answered 503 `DATABASE_UNAVAILABLE`: counted in the episode going on. */
  answeredUnavailable(): void {
    if (this.#episode) this.#episode.answeredUnavailable++;
  }

  /**
   * Connections stranded on a dead path were dropped (the path check that found it dead began
   * the episode): counted in the episode going on. Found after the database answered again,
   * they belong to an episode that has ended, and are not worth a line of their own.
   */
  droppedOnDeadPath(dropped: number): void {
    if (this.#episode) this.#episode.droppedConnections += dropped;
  }

  /**
   * A housekeeping run failed: true when the failure belongs to the episode going on (or starts
   * one), and is counted in it instead of being logged on its own. `since`: when the run began.
   * A run begun before the database's last answer was caught in an episode that has ended since
   * (its query on a connection the cut had killed failed once the cut healed): it belongs to that
   * episode, whose closing line is written, and starts no other.
   */
  housekeepingFailed(error: unknown, since?: number): boolean {
    const reason = databaseOutOfReach(error);
    if (reason === undefined) return false;
    if (!this.#episode && since !== undefined && since < this.#answeredAt) return true;
    if (outOfReachNow(error)) this.lost(reason, since);
    // Outside an episode (a session ended for idling, say) the caller logs it itself.
    if (!this.#episode) return false;
    this.#episode.failedHousekeeping++;
    return true;
  }

  /**
   * Runs `work`, which asks the database something, within the episode rule: it fails with
   * `StoreUnavailableError` when an episode is going on `patienceMs` after it began (the call's
   * `onGiveUp` runs then, for work that can stop), or when it fails the way a database out of
   * reach does. Its success ends an episode.
   *
   * One promise per call, the caller's: an AbortController, a promise to race and the race made
   * 2.1 KB more garbage per status read, which costs CPU twice over (made, then collected).
   */
  serve<T>(work: (call: ServedCall) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        givenUp: undefined,
        onGiveUp: undefined,
        startedAt: this.#now(),
        reject,
        timer: undefined,
        previous: undefined,
        next: undefined,
      };
      this.#waiting.add(waiting);
      if (this.#episode) this.#arm(waiting);
      let running: Promise<T>;
      try {
        running = work(waiting);
      } catch (error) {
        running = Promise.reject(error);
      }
      // Given up on, `work` still ends in its own time (its connection reset): its outcome is nobody's.
      running.then(
        (value) => {
          if (!this.#ended(waiting)) return;
          this.answered();
          resolve(value);
        },
        (error: unknown) => {
          if (this.#ended(waiting)) reject(this.#failure(error, waiting.startedAt));
        },
      );
    });
  }

  /** `waiting`'s work has ended: true when its caller is still to be answered (not given up on). */
  #ended(waiting: Waiting): boolean {
    clearTimeout(waiting.timer);
    this.#waiting.delete(waiting);
    return waiting.givenUp === undefined;
  }

  /** What a call whose work failed with `error` fails with. */
  #failure(error: unknown, startedAt: number): unknown {
    if (StoreUnavailableError.isInstance(error)) return error;
    const reason = expectedDatabaseFailure(error);
    if (reason === undefined) return error;
    if (outOfReachNow(error)) this.lost(reason, startedAt);
    return new StoreUnavailableError(reason, { cause: error });
  }

  /** Answers `waiting`'s caller with `error` now, and stops its work if it can. */
  #giveUp(waiting: Waiting, error: StoreUnavailableError): void {
    this.#waiting.delete(waiting);
    waiting.givenUp = error;
    waiting.reject(error);
    waiting.onGiveUp?.();
  }

  #arm(waiting: Waiting): void {
    if (waiting.timer !== undefined) return;
    const episode = this.#episode!;
    const delay = Math.max(0, waiting.startedAt + this.#patienceMs - this.#now());
    waiting.timer = setTimeout(() => {
      waiting.timer = undefined;
      this.#giveUp(
        waiting,
        new StoreUnavailableError(
          `PostgreSQL gave no answer within ${this.#patienceMs} ms while out of reach (${episode.reason})`,
        ),
      );
    }, delay);
  }
}
