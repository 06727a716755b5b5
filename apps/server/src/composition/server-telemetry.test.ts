import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createLogger } from "../logging/logger.js";
import type { ServerDatabase } from "./server-database.js";
import { openServerTelemetry } from "./server-telemetry.js";

describe("server telemetry switched off (the default)", () => {
  it("wraps nothing, observes nothing, listens nowhere and starts no tracer", async () => {
    const config = loadConfig({}, "/x");
    expect(config.metrics).toBeUndefined();
    expect(config.tracing).toBeUndefined();
    // Off, the database is never read: a stand-in that throws on any use proves it.
    const database = new Proxy({} as ServerDatabase, {
      get: (_target, name) => {
        throw new Error(`read ${String(name)} of the database`);
      },
    });
    const telemetry = openServerTelemetry(config, {
      workerId: "w",
      database,
      logger: createLogger("silent"),
    });
    const store = { transaction: async () => undefined, close: async () => undefined } as never;
    const renderer = { render: async () => ({ videoKey: "k" }) };
    const sender = { send: async () => ({ ok: true as const, statusCode: 200, durationMs: 1 }) };
    const handler = async () => new Response();
    expect(telemetry.observer).toBeUndefined();
    expect(telemetry.hostRequest).toBeUndefined();
    expect(telemetry.store(store)).toBe(store);
    expect(telemetry.renderer(renderer)).toBe(renderer);
    expect(telemetry.sender(sender)).toBe(sender);
    expect(telemetry.handler(handler)).toBe(handler);
    expect(await telemetry.listen({} as never)).toBeUndefined();
    // No SDK: spans made through the API are no-ops that record nothing.
    expect(trace.getTracer("genvideo-server").startSpan("x").isRecording()).toBe(false);
    await telemetry.close();
  });
});
