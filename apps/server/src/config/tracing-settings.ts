/**
 * Whether to trace, read from the standard OpenTelemetry variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/):
 * tracing starts only when an OTLP endpoint is named
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`) and
 * `OTEL_SDK_DISABLED` / `OTEL_TRACES_EXPORTER=none` do not turn it off. The
 * exporter itself reads the endpoint, headers, timeout and compression.
 */
import { ConfigError } from "./parsers.js";

export type OtlpProtocol = "http/protobuf" | "http/json";

export type TraceSamplerSetting =
  | { kind: "always_on" | "always_off" | "parentbased_always_on" | "parentbased_always_off" }
  | { kind: "traceidratio" | "parentbased_traceidratio"; ratio: number };

export interface TracingSettings {
  protocol: OtlpProtocol;
  /** OTEL_SERVICE_NAME; default genvideo-server. */
  serviceName: string;
  sampler: TraceSamplerSetting;
}

type Environment = Record<string, string | undefined>;

const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** The tracing the environment asks for; undefined when it asks for none. */
export function tracingSettings(env: Environment): TracingSettings | undefined {
  const endpoint =
    value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (endpoint === undefined) return undefined;
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const exporter = value(env, "OTEL_TRACES_EXPORTER")?.toLowerCase();
  if (exporter === "none") return undefined;
  if (exporter !== undefined && exporter !== "otlp")
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none, got "${exporter}"`);
  return {
    protocol: protocolSetting(env),
    serviceName: value(env, "OTEL_SERVICE_NAME") ?? "genvideo-server",
    sampler: samplerSetting(env),
  };
}

function protocolSetting(env: Environment): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const raw = value(env, name) ?? "http/protobuf";
  if (raw === "http/protobuf" || raw === "http/json") return raw;
  throw new ConfigError(`${name} must be http/protobuf or http/json (gRPC is not supported), got "${raw}"`);
}

function samplerSetting(env: Environment): TraceSamplerSetting {
  const raw = value(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  const kind = SAMPLERS.find((sampler) => sampler === raw);
  if (kind === undefined)
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}, got "${raw}"`);
  if (kind !== "traceidratio" && kind !== "parentbased_traceidratio") return { kind };
  const arg = value(env, "OTEL_TRACES_SAMPLER_ARG");
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!(ratio >= 0 && ratio <= 1))
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${arg}"`);
  return { kind, ratio };
}

function value(env: Environment, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}
