/**
 * OpenTelemetry traces, when the OTEL_* variables ask for them
 * (`tracingSettings`). The code names spans through `@opentelemetry/api`
 * only; this module starts the SDK (an AsyncLocalStorage context, W3C trace
 * context propagation, a batching OTLP/HTTP exporter) and nothing else runs
 * when tracing is off: the wrappers in traced-ports.ts are not installed then,
 * so an untraced server pays nothing for it.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { TraceSamplerSetting, TracingSettings } from "../config/tracing-settings.js";
import type { ServerRole } from "../config.js";

export interface Tracing {
  /** Sends the spans still batched and stops; call last on shutdown. */
  shutdown(): Promise<void>;
}

/** Starts the SDK as the global tracer provider, context manager and propagator of this process. */
export function startTracing(settings: TracingSettings, role: ServerRole, workerId: string): Tracing {
  const exporter = settings.protocol === "http/json" ? new JsonTraceExporter() : new ProtobufTraceExporter();
  // OTEL_RESOURCE_ATTRIBUTES first; the service name and instance are ours unless it names them.
  const resource = resourceFromAttributes({
    "service.name": settings.serviceName,
    "service.instance.id": workerId,
    "genvideo.role": role,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager();
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

function samplerOf(setting: TraceSamplerSetting): Sampler {
  switch (setting.kind) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(setting.ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(setting.ratio) });
  }
}
