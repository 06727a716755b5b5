/**
 * Finds connections stranded on a dead network path to PostgreSQL and drops
 * them, so that the pool opens new ones as soon as the path heals.
 *
 * A partition drops packets silently: a query sent into it is never answered
 * and never refused, and TCP retransmits it with a backoff that doubles up to
 * minutes (tcp_retries2). Without this, a process would wait as long as the
 * partition lasted and then some: its first answer after the healing comes at
 * TCP's next retransmission, seconds later.
 *
 * A timeout on queries would also cut a healthy slow query short. So a query
 * is never cut for its duration alone: a connection that has waited
 * `suspectAfterMs` for an answer (it sent bytes and heard nothing since), or
 * callers waiting that long on the pool itself (a connect under way, or no
 * free connection), make the watch open a TCP handshake to the database's address. The
 * database machine's kernel answers a handshake however busy PostgreSQL is,
 * so on a healthy path it succeeds at once and every query keeps waiting.
 * Only when the handshake gets no answer within `probeTimeoutMs` is the path
 * dead: the connections waiting on it are destroyed (their queries fail at
 * once, the pool drops them), and idle ones with them.
 *
 * A handshake unanswered for `unansweredAfterMs` already says that requests
 * should not wait on this database (`onUnanswered`): they are answered 503
 * then, while connections are dropped only at `probeTimeoutMs`.
 */
import { connect } from "node:net";
import type pg from "pg";

export interface DeadPathWatchOptions {
  host: string;
  port: number;
  /** A connection waiting this long for an answer makes the watch probe the path. */
  suspectAfterMs: number;
  /** A handshake unanswered this long: the path is dead. */
  probeTimeoutMs: number;
  /** Called once per dead path found, with how many connections were dropped. */
  onDeadPath?: (dropped: number) => void;
  /** A probe's handshake unanswered this long (or `probeTimeoutMs`, if shorter) calls `onUnanswered`. */
  unansweredAfterMs?: number;
  /** `since`: when the unanswered handshake was sent (`performance.now()`). */
  onUnanswered?: (reason: string, since: number) => void;
}

interface Watched {
  client: pg.Client;
  socket: import("node:net").Socket;
  /** `socket.bytesWritten` when the last byte was read: more written since means an answer is owed. */
  writtenAtLastRead: number;
  /** When the watch first saw it owed an answer; undefined while it owes none. */
  waitingSince: number | undefined;
}

export interface DeadPathWatch {
  stop(): void;
}

export function watchForDeadPath(pool: pg.Pool, options: DeadPathWatchOptions): DeadPathWatch {
  const watched = new Map<pg.Client, Watched>();
  let probing = false;

  pool.on("connect", (client) => {
    const socket = (client as unknown as { connection?: { stream?: import("node:net").Socket } }).connection
      ?.stream;
    // A dropped connection's error is expected: heard here, so a client a caller holds outside a
    // store transaction (Kysely's own queries) does not crash the process; its query fails instead.
    client.on("error", () => undefined);
    if (!socket || typeof socket.bytesWritten !== "number") return;
    const entry: Watched = {
      client,
      socket,
      writtenAtLastRead: socket.bytesWritten,
      waitingSince: undefined,
    };
    socket.on("data", () => {
      entry.writtenAtLastRead = socket.bytesWritten;
      entry.waitingSince = undefined;
    });
    socket.once("close", () => watched.delete(client));
    watched.set(client, entry);
  });
  pool.on("remove", (client) => watched.delete(client));

  const probe = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host: options.host, port: options.port });
      const startedAt = performance.now();
      let reported = false;
      // Said once per probe, at `unansweredAfterMs` or at the timeout, whichever comes first.
      const reportUnanswered = () => {
        if (reported) return;
        reported = true;
        const waitedMs = Math.round(performance.now() - startedAt);
        options.onUnanswered?.(
          `no answer from PostgreSQL: a TCP handshake to it went unanswered for ${waitedMs} ms`,
          startedAt,
        );
      };
      const unanswered =
        options.unansweredAfterMs !== undefined && options.unansweredAfterMs < options.probeTimeoutMs
          ? setTimeout(reportUnanswered, options.unansweredAfterMs)
          : undefined;
      const timer = setTimeout(() => {
        reportUnanswered();
        done(false);
      }, options.probeTimeoutMs);
      const done = (alive: boolean) => {
        clearTimeout(timer);
        clearTimeout(unanswered);
        socket.destroy();
        resolve(alive);
      };
      socket.once("connect", () => done(true));
      // Refused is an answer: the path carries packets (PostgreSQL's fate is the pool's business).
      socket.once("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED"));
    });

  /** Since when callers have waited on the pool itself (for a free connection, or one connecting). */
  let poolWaitingSince: number | undefined;
  const check = async () => {
    const now = performance.now();
    let suspect = false;
    if (pool.waitingCount > 0 || pool.totalCount > watched.size) poolWaitingSince ??= now;
    else poolWaitingSince = undefined;
    if (poolWaitingSince !== undefined && now - poolWaitingSince >= options.suspectAfterMs) suspect = true;
    for (const entry of watched.values()) {
      if (entry.socket.bytesWritten > entry.writtenAtLastRead) entry.waitingSince ??= now;
      else entry.waitingSince = undefined;
      if (entry.waitingSince !== undefined && now - entry.waitingSince >= options.suspectAfterMs)
        suspect = true;
    }
    if (suspect) await probeThePath();
  };

  const probeThePath = async () => {
    if (probing) return;
    probing = true;
    try {
      if (await probe()) return;
      const stranded = [...watched.values()];
      for (const entry of stranded) resetConnection(entry.socket, "the network path to it is down");
      watched.clear();
      options.onDeadPath?.(stranded.length);
    } finally {
      probing = false;
    }
  };

  const interval = setInterval(() => void check(), Math.max(50, Math.floor(options.suspectAfterMs / 4)));
  interval.unref();
  return { stop: () => clearInterval(interval) };
}

/**
 * Ends a connection with a TCP reset, which discards what it had not yet got through: a statement
 * stuck in a cut is then never delivered after the healing, to run for a caller that gave up on it.
 * (A plain close would retransmit it, and an autocommit statement would run.)
 */
export function resetConnection(socket: import("node:net").Socket, why: string): void {
  // The client sees its connection end ("Connection terminated unexpectedly") either way.
  if (!socket.destroyed && !socket.connecting) socket.resetAndDestroy();
  else socket.destroy(new Error(`no answer from PostgreSQL: ${why}`));
}
