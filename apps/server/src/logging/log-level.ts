/** pino's levels, most severe first; `silent` writes nothing. `GENVIDEO_LOG_LEVEL` takes one. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];
