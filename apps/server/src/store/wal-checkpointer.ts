/**
 * Moves WAL checkpoints off the request path. By default SQLite checkpoints
 * inside a commit every 1000 pages, and a checkpoint fsyncs: measured here it
 * more than doubled the cost of a create. The server turns automatic
 * checkpoints off on its connection and runs a PASSIVE checkpoint every
 * second from a worker thread with its own connection, so the fsync never
 * blocks the event loop. PASSIVE never waits for or blocks writers.
 */
import { Worker } from "node:worker_threads";

// Inline (CommonJS, as eval workers are) so the built server needs no extra file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { DatabaseSync } = require("node:sqlite");
const { statSync } = require("node:fs");
const database = new DatabaseSync(workerData.path);
database.exec("PRAGMA busy_timeout = 5000");
const checkpoint = (mode) => {
  try {
    database.exec("PRAGMA wal_checkpoint(" + mode + ")");
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const walSize = () => {
  try {
    return statSync(workerData.path + "-wal").size;
  } catch {
    return 0;
  }
};
const timer = setInterval(() => {
  checkpoint("PASSIVE");
  // Under endless writes a PASSIVE checkpoint never catches up and the WAL only grows;
  // past the limit, TRUNCATE makes writers wait (busy_timeout) until it has been reset
  // and cut back to nothing (after RESTART the file would keep its size and trip this again).
  if (walSize() > workerData.maxWalBytes) checkpoint("TRUNCATE");
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message === "now") {
    checkpoint("PASSIVE");
    parentPort.postMessage({ checkpointed: true });
    return;
  }
  if (message !== "stop") return;
  clearInterval(timer);
  // Leave a short WAL behind: the next start (or the CLI) opens faster.
  checkpoint("TRUNCATE");
  database.close();
  parentPort.postMessage({ stopped: true });
});
`;

export interface WalCheckpointer {
  /**
   * A PASSIVE checkpoint now, in the thread; resolves when it is done. Called
   * with no transaction of the server's open, it copies the whole WAL, and the
   * next write starts the WAL over (see `SqliteStoreOptions.walUpkeep`).
   */
  checkpointNow(): Promise<void>;
  /** A final checkpoint, then the thread ends. Call after the last write. */
  stop(): Promise<void>;
}

/** Past this size the WAL is checkpointed even if writers must wait for it. */
const MAX_WAL_BYTES = 64 * 1024 * 1024;

export function startWalCheckpointer(
  path: string,
  options: { intervalMs?: number; maxWalBytes?: number; onError?: (message: string) => void } = {},
): WalCheckpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      intervalMs: options.intervalMs ?? 1000,
      maxWalBytes: options.maxWalBytes ?? MAX_WAL_BYTES,
    },
  });
  // The thread must not keep a process alive that is otherwise done.
  worker.unref();
  let stopped: Promise<void> | undefined;
  // Answers to checkpointNow, in the order asked (the thread handles messages one by one).
  const checkpointsAsked: (() => void)[] = [];
  const finished = new Promise<void>((resolve) => {
    worker.on("message", (message: { error?: string; stopped?: boolean; checkpointed?: boolean }) => {
      if (message.error) options.onError?.(message.error);
      if (message.checkpointed) checkpointsAsked.shift()?.();
      if (message.stopped) resolve();
    });
    worker.once("exit", () => {
      for (const answer of checkpointsAsked.splice(0)) answer();
      resolve();
    });
    worker.once("error", (error) => {
      options.onError?.(error.message);
      resolve();
    });
  });
  return {
    checkpointNow() {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        checkpointsAsked.push(resolve);
        worker.postMessage("now");
      });
    },
    stop() {
      stopped ??= (async () => {
        worker.postMessage("stop");
        await finished;
        await worker.terminate();
      })();
      return stopped;
    },
  };
}
