/**
 * Structured JSON logs (pino) on stdout. What goes in is chosen field by
 * field, never whole requests or headers, so an API key or a webhook secret
 * has no way in; the redaction list is a second line of defence.
 */
import { trace } from "@opentelemetry/api";
import { type DestinationStream, type Logger, pino } from "pino";
import { LineBatcher } from "./line-batcher.js";
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

export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  { traceIds = false }: LoggerOptions = {},
): Logger {
  return pino(
    {
      level,
      ...(traceIds ? { mixin: traceIdsOfActiveSpan } : {}),
      base: { service: "genvideo-server" },
      timestamp: isoTimeOncePerMillisecond(),
      // Top-level names only: wildcard paths cost a few percent of a status read.
      redact: {
        paths: ["authorization", "headers", "apiKey", "key", "secret", "webhookSecret"],
        censor: "[redacted]",
      },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? batchedStdout(),
  );
}

/**
 * stdout through pino's asynchronous destination, by the chunk (line-batcher.ts). What is
 * gathered is written at exit too, before the destination's own last flush.
 */
function batchedStdout(): LineBatcher {
  const batcher = new LineBatcher(pino.destination({ fd: 1, sync: false }));
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
