import { createServer } from "node:net";
import { Counter, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../config.js";
import { listenOnLoopback } from "../testing/loopback.js";
import { type MetricsListener, startMetricsListener } from "./metrics-listener.js";

const listeners: MetricsListener[] = [];
afterEach(async () => {
  for (const listener of listeners.splice(0)) await listener.close();
});

function registryWithOneCounter(): Registry {
  const registry = new Registry();
  new Counter({ name: "genvideo_test_total", help: "A counter.", registers: [registry] }).inc(3);
  return registry;
}

describe("the metrics listener", () => {
  it("serves /metrics, and nothing else, on the port it was given", async () => {
    const listener = await startMetricsListener(
      registryWithOneCounter(),
      { host: "127.0.0.1", port: 0 },
      () => {},
    );
    listeners.push(listener);
    const response = await fetch(listener.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("genvideo_test_total 3");
    expect((await fetch(new URL("/", listener.url))).status).toBe(404);
    expect((await fetch(listener.url, { method: "POST" })).status).toBe(404);
    expect((await fetch(listener.url, { method: "HEAD" })).status).toBe(200);
  });

  it("answers 500 and reports the error when a metric fails to collect", async () => {
    const registry = new Registry();
    new Counter({
      name: "genvideo_broken_total",
      help: "Fails.",
      registers: [registry],
      collect() {
        throw new Error("collect failed");
      },
    });
    const errors: unknown[] = [];
    const listener = await startMetricsListener(registry, { host: "127.0.0.1", port: 0 }, (error) =>
      errors.push(error),
    );
    listeners.push(listener);
    expect((await fetch(listener.url)).status).toBe(500);
    expect(String(errors[0])).toContain("collect failed");
  });

  it("stops the start with one line naming the setting when the port is taken", async () => {
    const taken = createServer();
    const port = await listenOnLoopback(taken);
    try {
      const start = startMetricsListener(new Registry(), { host: "127.0.0.1", port }, () => {});
      await expect(start).rejects.toThrow(ConfigError);
      await expect(
        startMetricsListener(new Registry(), { host: "127.0.0.1", port }, () => {}),
      ).rejects.toThrow(`GENVIDEO_METRICS_PORT ${port} is already in use on 127.0.0.1`);
    } finally {
      taken.close();
    }
  });
});
