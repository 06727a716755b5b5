/**
 * History retention (GENVIDEO_HISTORY_RETENTION; docs/operating.md, "History
 * retention"): from the worker loop, after a tick, one batch of at most
 * `BATCH_TASKS` ended tasks past the age, in a transaction of its own, so that
 * what a batch holds up (SQLite's one connection, PostgreSQL's row locks) is
 * bounded by the batch and never by the history. A full batch is followed by
 * another after the next tick; otherwise the next look is `IDLE_INTERVAL_MS`
 * away. Records of deleted tasks (`retired_tasks`, what the 404 tells their
 * owner) are kept for a second retention period, then forgotten the same way.
 */
import type { HistoryDeletion, Store } from "@genvideo/engine";
import type { Logger } from "../logging/logger.js";

/** Tasks per batch: on SQLite about a millisecond of the connection per ten tasks. */
export const BATCH_TASKS = 100;
/** Real time between two looks when the last batch found less than a full one. */
const IDLE_INTERVAL_MS = 5_000;

export interface HistoryRetentionOptions {
  store: Store;
  retentionMs: number;
  /** Service time: the rows' times are service times. */
  serviceNow(): number;
  /** Gives the space of deleted rows back after a batch that deleted some (SQLite's incremental vacuum). */
  reclaimSpace(): Promise<void>;
  logger: Logger;
  /** Real time (tests move it). */
  now?: () => number;
}

export interface HistoryRetention {
  /** Runs a batch when one is due; called after every tick of the worker loop. */
  runIfDue(): Promise<void>;
}

const NOTHING: HistoryDeletion = {
  tasks: 0,
  ledgerEntries: 0,
  webhookEvents: 0,
  webhookAttempts: 0,
  forgotten: 0,
};

export function createHistoryRetention(options: HistoryRetentionOptions): HistoryRetention {
  const now = options.now ?? (() => performance.now());
  let nextAt = Number.NEGATIVE_INFINITY;
  // What the batches since the last line deleted: one line per catch-up, not per batch.
  let deleted = NOTHING;
  return {
    async runIfDue() {
      if (now() < nextAt) return;
      nextAt = now() + IDLE_INTERVAL_MS;
      const serviceNow = options.serviceNow();
      const batch = await options.store.transaction((tx) =>
        tx.deleteEndedTasks(
          serviceNow - options.retentionMs,
          serviceNow - 2 * options.retentionMs,
          BATCH_TASKS,
        ),
      );
      if (batch.tasks + batch.forgotten === 0 && deleted.tasks + deleted.forgotten === 0) return;
      deleted = {
        tasks: deleted.tasks + batch.tasks,
        ledgerEntries: deleted.ledgerEntries + batch.ledgerEntries,
        webhookEvents: deleted.webhookEvents + batch.webhookEvents,
        webhookAttempts: deleted.webhookAttempts + batch.webhookAttempts,
        forgotten: deleted.forgotten + batch.forgotten,
      };
      if (batch.tasks + batch.forgotten > 0) await options.reclaimSpace();
      if (batch.tasks === BATCH_TASKS || batch.forgotten === BATCH_TASKS) {
        nextAt = now();
        return;
      }
      options.logger.info(
        { ...deleted, retentionMs: options.retentionMs },
        "history retention deleted ended tasks",
      );
      deleted = NOTHING;
    },
  };
}
