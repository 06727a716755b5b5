import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";

const load = (env: Record<string, string>) => loadConfig(env, "/x");

describe("metrics settings", () => {
  it("listen nowhere unless GENVIDEO_METRICS_PORT is set, then on loopback unless told", () => {
    expect(load({}).metrics).toBeUndefined();
    expect(load({ GENVIDEO_METRICS_PORT: "9464" }).metrics).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(load({ GENVIDEO_METRICS_PORT: "9464", GENVIDEO_METRICS_HOST: "0.0.0.0" }).metrics).toEqual({
      host: "0.0.0.0",
      port: 9464,
    });
  });

  it.each([
    [{ GENVIDEO_METRICS_HOST: "0.0.0.0" }, "GENVIDEO_METRICS_HOST is set but GENVIDEO_METRICS_PORT is not"],
    [
      { GENVIDEO_METRICS_PORT: "http" },
      'GENVIDEO_METRICS_PORT must be a whole number from 0 to 65535, got "http"',
    ],
    [{ GENVIDEO_METRICS_PORT: "8787" }, "GENVIDEO_METRICS_PORT must differ from PORT (8787)"],
    [{ PORT: "9000", GENVIDEO_METRICS_PORT: "9000" }, "GENVIDEO_METRICS_PORT must differ from PORT (9000)"],
  ])("refuses %o naming the setting", (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});

describe("tracing settings (the standard OTEL_* variables)", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

  it("are off without an OTLP endpoint, or when the SDK or the traces exporter is switched off", () => {
    expect(load({}).tracing).toBeUndefined();
    expect(load({ OTEL_SERVICE_NAME: "api", OTEL_TRACES_SAMPLER: "always_on" }).tracing).toBeUndefined();
    expect(load({ ...endpoint, OTEL_SDK_DISABLED: "true" }).tracing).toBeUndefined();
    expect(load({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).tracing).toBeUndefined();
  });

  it("start with an endpoint: http/protobuf by default, the service name and sampler as given", () => {
    expect(load(endpoint).tracing).toEqual({
      protocol: "http/protobuf",
      serviceName: "genvideo-server",
      sampler: { kind: "parentbased_always_on" },
    });
    expect(
      load({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "genvideo-api",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
      }).tracing,
    ).toEqual({
      protocol: "http/json",
      serviceName: "genvideo-api",
      sampler: { kind: "parentbased_traceidratio", ratio: 0.25 },
    });
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json",
    ],
    [{ OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER must be one of always_on"],
    [
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
      'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "2"',
    ],
    [{ OTEL_TRACES_EXPORTER: "zipkin" }, 'OTEL_TRACES_EXPORTER must be otlp or none, got "zipkin"'],
  ])("refuses %o naming the variable", (env, message) => {
    expect(() => load({ ...endpoint, ...env })).toThrow(message);
  });
});
