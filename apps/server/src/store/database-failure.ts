/**
 * Tells the database failing a process expects (a partition, a restart, a
 * session PostgreSQL ended) from a fault of ours, so that logs say what
 * happened at the level it deserves: the first is an operator's warning, the
 * second an error.
 */

/** SQLSTATE of a session ended by `idle_in_transaction_session_timeout`. */
const IDLE_IN_TRANSACTION_TIMEOUT = "25P03";
/** SQLSTATEs of a server shutting down, crashed, or not yet accepting connections. */
const SERVER_GONE = new Set(["57P01", "57P02", "57P03"]);
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
