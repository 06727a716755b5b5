/**
 * Tells the database failing a process expects (a partition, a restart, a
 * session PostgreSQL ended) from a fault of ours, so that logs say what
 * happened at the level it deserves: the first is an operator's warning, the
 * second an error. The one place that decides: requests that meet the first
 * are answered 503 `DATABASE_UNAVAILABLE` (database-reachability.ts).
 */
import { StoreUnavailableError } from "@genvideo/engine";

/** SQLSTATE of a session ended by `idle_in_transaction_session_timeout`. */
const IDLE_IN_TRANSACTION_TIMEOUT = "25P03";
/**
 * SQLSTATEs of a server shutting down, crashed, or not yet accepting connections, of too many
 * connections, and of class 08 (a connection that failed or was never made).
 */
const SERVER_GONE = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);
/** Socket errors of a path or a server that went away. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);
/** What pg says when a connection ends, or its connect timed out (it sets no code for these). */
const NETWORK_MESSAGES = [
  /Connection terminated/i,
  /timeout expired/i,
  /no answer from PostgreSQL/i,
  /timeout exceeded when trying to connect/i,
  /is not queryable/i,
];

/**
 * One line saying what went wrong when `error` is the database failing in an
 * expected way; undefined for anything else.
 */
export function expectedDatabaseFailure(error: unknown): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : String(error);
  if (code === IDLE_IN_TRANSACTION_TIMEOUT)
    return `PostgreSQL ended a session left idle in a transaction for longer than the lease (idle_in_transaction_session_timeout): the database was out of reach that long: ${text}`;
  if (typeof code === "string" && (SERVER_GONE.has(code) || NETWORK_CODES.has(code)))
    return `PostgreSQL unreachable: ${text}`;
  if (NETWORK_MESSAGES.some((pattern) => pattern.test(text))) return `PostgreSQL unreachable: ${text}`;
  return undefined;
}

/**
 * Why `error` means the database is out of reach for now (a client should retry: 503), or
 * undefined when it is a fault of ours (500, logged as an error).
 */
export function databaseOutOfReach(error: unknown): string | undefined {
  if (StoreUnavailableError.isInstance(error)) return error.message;
  return expectedDatabaseFailure(error);
}

/**
 * Whether `error`, an expected failure, says the database is out of reach now. A session
 * PostgreSQL ended for idling in a transaction says only that this process, or its path, stalled
 * for that long before (a frozen process that woke up finds it): it fails its transaction and
 * starts no episode.
 */
export function outOfReachNow(error: unknown): boolean {
  return (error as { code?: unknown }).code !== IDLE_IN_TRANSACTION_TIMEOUT;
}
