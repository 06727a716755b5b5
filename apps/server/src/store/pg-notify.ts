/**
 * Wake-ups for idle workers on PostgreSQL, as a hint only. Workers poll
 * anyway (every tick), so a hint lost, late or never sent costs latency, not
 * correctness; that is also why GENVIDEO_PG_LISTEN=off (PgBouncer in
 * transaction mode, which cannot hold a LISTEN) is safe.
 *
 * NOTIFY is never sent per row, nor inside the transactions that make work:
 * a transaction that notifies takes a database-wide lock at commit, which
 * would serialise every create of every API process. Instead each process
 * sends one NOTIFY, on its own, after a group of commits that made work:
 * the commits of one turn of the event loop, and those made while the
 * previous NOTIFY was on its way, share the next one.
 */
import pg from "pg";

export const WORK_CHANNEL = "genvideo_work";

export interface WorkNotifier {
  /** A commit made work: a NOTIFY goes out soon, shared with other commits. */
  hint(): void;
  /** Resolves once no NOTIFY is pending. */
  flush(): Promise<void>;
}

export function createWorkNotifier(pool: pg.Pool, onError: (error: unknown) => void): WorkNotifier {
  let state: "idle" | "scheduled" | "sending" = "idle";
  let again = false;
  let sending: Promise<void> = Promise.resolve();
  const schedule = () => {
    state = "scheduled";
    setImmediate(send);
  };
  const send = () => {
    state = "sending";
    sending = pool
      .query(`notify ${WORK_CHANNEL}`)
      .then(
        () => undefined,
        (error: unknown) => onError(error),
      )
      .finally(() => {
        state = "idle";
        if (again) {
          again = false;
          schedule();
        }
      });
  };
  return {
    hint() {
      if (state === "idle") schedule();
      else if (state === "sending") again = true;
    },
    async flush() {
      while (state !== "idle") {
        if (state === "scheduled") await new Promise((resolve) => setImmediate(resolve));
        else await sending;
      }
    },
  };
}

export interface WorkListener {
  stop(): Promise<void>;
}

/**
 * LISTENs on a connection of its own (not from the query pool) and calls
 * `onWork` for each hint. A lost connection is reconnected after a pause; the
 * workers' polling covers the gap.
 */
export function listenForWork(
  url: string,
  options: { applicationName: string; onWork: () => void; onError: (error: unknown) => void },
): WorkListener {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString: url, application_name: options.applicationName });
    client = next;
    next.on("notification", () => options.onWork());
    next.on("error", (error) => {
      options.onError(error);
      reconnect(next);
    });
    try {
      await next.connect();
      await next.query(`listen ${WORK_CHANNEL}`);
      // Work made while we were not listening is found by the next poll; wake it now anyway.
      options.onWork();
    } catch (error) {
      options.onError(error);
      reconnect(next);
    }
  };
  const reconnect = (failed: pg.Client) => {
    if (stopped || client !== failed || retry) return;
    void failed.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };
  void connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
