/**
 * Structured JSON logs (pino) on stdout. What goes in is chosen field by
 * field, never whole requests or headers, so an API key or a webhook secret
 * has no way in; the redaction list is a second line of defence.
 */
import type { RequestLogEntry } from "@genvideo/engine";
import { trace } from "@opentelemetry/api";
import { type DestinationStream, type Logger, pino } from "pino";
import { type ChunkTarget, LineBatcher } from "./line-batcher.js";
import type { LogLevel } from "./log-level.js";

export type { Logger };

export interface LoggerOptions {
  /**
   * Tracing is on: each line written inside a span carries its `traceId`
   * (and `spanId`), so a log search finds the trace and the trace its lines.
   * Off, no mixin runs at all.
   */
  traceIds?: boolean;
}

/** Fields every line carries (pino's `base`). */
const BASE = { service: "genvideo-server" } as const;
const levelField = (label: string) => ({ level: label });

export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  { traceIds = false }: LoggerOptions = {},
): Logger {
  const time = isoTimeOncePerMillisecond();
  const stream = destination ?? batchedStdout();
  const logger = pino(
    {
      level,
      ...(traceIds ? { mixin: traceIdsOfActiveSpan } : {}),
      base: BASE,
      timestamp: time,
      // Top-level names only: wildcard paths cost a few percent of a status read.
      redact: {
        paths: ["authorization", "headers", "apiKey", "key", "secret", "webhookSecret"],
        censor: "[redacted]",
      },
      formatters: { level: levelField },
    },
    stream,
  );
  // A mixin adds fields of its own to every line: then only pino's own path writes them.
  if (!traceIds) handWrittenRequestLines.set(logger, handWrittenRequestLine(logger, stream, time));
  return logger;
}

/** The request line, one per HTTP request (the engine's `RequestLogEntry`, and the server's own routes'). */
export type RequestLine = (entry: RequestLogEntry) => void;

const handWrittenRequestLines = new WeakMap<Logger, RequestLine>();

/**
 * How `logger` writes the request line: `logger.info(entry, "request")`, or the same bytes made by
 * hand for a logger of `createLogger` without trace ids.
 */
export function requestLine(logger: Logger): RequestLine {
  return handWrittenRequestLines.get(logger) ?? ((entry) => logger.info(entry, "request"));
}

/**
 * pino's line for a request, made without its general path: that loops over the fields with a
 * redaction check and a serialiser each, and was most of the line's cost (about 8 µs of a
 * status read against 3 µs for this), for a line whose few fields are always the same. The
 * bytes are pino's own, field order included (logger.test.ts compares them); none of these
 * fields is one the redaction list names.
 */
function handWrittenRequestLine(logger: Logger, stream: DestinationStream, time: () => string): RequestLine {
  const head = `${JSON.stringify(levelField("info")).slice(0, -1)}`;
  const bindings = `,${JSON.stringify(BASE).slice(1, -1)}`;
  return (entry) => {
    if (!logger.isLevelEnabled("info")) return;
    let line = `${head}${time()}${bindings},"requestId":${JSON.stringify(entry.requestId)},"method":${JSON.stringify(entry.method)},"path":${JSON.stringify(entry.path)},"status":${entry.status},"durationMs":${entry.durationMs}`;
    if (entry.accountId !== undefined) line += `,"accountId":${JSON.stringify(entry.accountId)}`;
    if (entry.clientAborted) line += ',"clientAborted":true';
    stream.write(`${line},"msg":"request"}\n`);
  };
}

/**
 * stdout through pino's asynchronous destination, by the chunk of bytes (line-batcher.ts). What
 * is gathered is written at exit too, before the destination's own last flush.
 */
function batchedStdout(): LineBatcher {
  // In its `buffer` mode sonic-boom's write takes bytes; its typings know only the mode of strings.
  const destination = pino.destination({ fd: 1, sync: false, contentMode: "buffer" });
  const batcher = new LineBatcher(destination as unknown as ChunkTarget);
  process.once("exit", () => batcher.flushSync());
  return batcher;
}

/**
 * pino's `isoTime`, with the Date and its string made once per millisecond:
 * under load many lines share one, and making them was a fifth of a request line.
 */
function isoTimeOncePerMillisecond(): () => string {
  let last = Number.NaN;
  let time = "";
  return () => {
    const now = Date.now();
    if (now !== last) {
      last = now;
      time = `,"time":"${new Date(now).toISOString()}"`;
    }
    return time;
  };
}

function traceIdsOfActiveSpan(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
