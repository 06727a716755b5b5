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
 * `suspectAfterMs` for an answer (it sent bytes and heard nothing since)
 * makes the watch open a TCP handshake to the database's address. The
 * database machine's kernel answers a handshake however busy PostgreSQL is,
 * so on a healthy path it succeeds at once and every query keeps waiting.
 * Only when the handshake gets no answer within `probeTimeoutMs` is the path
 * dead: the connections waiting on it are destroyed (their queries fail at
 * once, the pool drops them), and idle ones with them.
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
      const done = (alive: boolean) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(alive);
      };
      const timer = setTimeout(() => done(false), options.probeTimeoutMs);
      socket.once("connect", () => done(true));
      // Refused is an answer: the path carries packets (PostgreSQL's fate is the pool's business).
      socket.once("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED"));
    });

  const check = async () => {
    const now = performance.now();
    let suspect = false;
    for (const entry of watched.values()) {
      if (entry.socket.bytesWritten > entry.writtenAtLastRead) entry.waitingSince ??= now;
      else entry.waitingSince = undefined;
      if (entry.waitingSince !== undefined && now - entry.waitingSince >= options.suspectAfterMs)
        suspect = true;
    }
    if (!suspect || probing) return;
    probing = true;
    try {
      if (await probe()) return;
      const stranded = [...watched.values()];
      for (const entry of stranded)
        entry.socket.destroy(new Error("no answer from PostgreSQL: the network path to it is down"));
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
