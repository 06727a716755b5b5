/**
 * What a process shows its operator: where `/metrics` listens (never on the API's port) and,
 * from the standard OTEL_* variables (`tracing-settings.ts`), where its traces go.
 */
import { ConfigError, integer, text } from "./parsers.js";
import { readSettings, setting } from "./setting.js";
import { type TracingSettings, tracingSettings } from "./tracing-settings.js";

export type { TracingSettings } from "./tracing-settings.js";

export const TELEMETRY_SETTINGS = {
  metricsPort: setting<number, undefined>({
    name: "GENVIDEO_METRICS_PORT",
    default: undefined,
    parse: integer(0, 65_535),
    description:
      "Serves Prometheus metrics at /metrics on this port (0: a free one); unset: no metrics listener.",
  }),
  metricsHost: setting<string, undefined>({
    name: "GENVIDEO_METRICS_HOST",
    default: undefined,
    parse: text,
    description: "Address the metrics listener binds; 127.0.0.1 when unset.",
  }),
};

export interface MetricsSettings {
  host: string;
  /** 0: a free port the OS picks (tests). */
  port: number;
}

export interface TelemetrySettings {
  /** Where `/metrics` listens; undefined: nowhere. */
  metrics: MetricsSettings | undefined;
  /** Where traces go; undefined: tracing off. */
  tracing: TracingSettings | undefined;
}

export function readTelemetrySettings(
  env: Record<string, string | undefined>,
  apiPort: number,
): TelemetrySettings {
  const { metricsPort, metricsHost } = readSettings(env, TELEMETRY_SETTINGS);
  if (metricsPort === undefined && metricsHost !== undefined)
    throw new ConfigError("GENVIDEO_METRICS_HOST is set but GENVIDEO_METRICS_PORT is not");
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === apiPort)
    throw new ConfigError(
      `GENVIDEO_METRICS_PORT must differ from PORT (${apiPort}): metrics never share the API port`,
    );
  return {
    metrics: metricsPort === undefined ? undefined : { host: metricsHost || "127.0.0.1", port: metricsPort },
    tracing: tracingSettings(env),
  };
}
