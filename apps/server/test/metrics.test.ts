/**
 * `/metrics` of one server process on SQLite: on its own listener, every
 * outcome counted, the queue read at scrape, and labels that stay bounded
 * however many tasks, accounts and paths go by.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createTask, waitForTerminal } from "./support/api.js";
import { metricsUrlOf, parseSamples, type Sample, sampleValue } from "./support/metrics.js";
import { answering, startReceiver, type TestReceiver } from "./support/receivers.js";
import { eventually, FAST_SERVICE_ENV, TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

let receiver: TestReceiver;
let closedPort: number;

beforeAll(async () => {
  receiver = await startReceiver((request, response) => {
    // Never answered: each attempt there runs out of time.
    if (request.url === "/hang") return;
    answering(request.url === "/ok" ? 204 : 500)(request, response);
  });
  // A port nobody listens on any more: every attempt there is a refused connection.
  const closed = await startReceiver(answering(200));
  closedPort = closed.port;
  await closed.close();
});

const server = useServer({
  // Attempts end after a second instead of 30: the hanging receiver's five take five seconds.
  env: { ...FAST_SERVICE_ENV, GENVIDEO_METRICS_PORT: "0", GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: "1000" },
  afterStop: () => receiver?.close(),
});

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const response = await fetch(metricsUrlOf(server));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, samples: parseSamples(text) };
}

describe("metrics of one process", () => {
  it("listens on a port of its own, loopback by default, never on the API port", async () => {
    const url = new URL(metricsUrlOf(server));
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.port).not.toBe(new URL(server.url).port);
    expect((await server.fetch("/metrics")).status).toBe(404);
    expect((await fetch(new URL("/other", url))).status).toBe(404);
  });

  it("counts every outcome of tasks and webhook attempts, with bounded labels only", async () => {
    const hook = (path: string) => ({ callback_url: `${receiver.origin}${path}` });
    const ids = [
      await createTask(server, { prompt: "a lighthouse", ...hook("/ok") }),
      await createTask(server, { prompt: "a harbour", ...hook("/fail") }),
      await createTask(server, {
        prompt: "a pier",
        callback_url: `http://127.0.0.1:${closedPort}/gone`,
      }),
      await createTask(server, { prompt: "a storm [[fail:UNSAFE_CONTENT]]", model_type: "gen-3" }),
      await createTask(server, { prompt: "a wreck [[fail:GENERATION_FAILED]]" }),
      await createTask(server, { prompt: "a ghost ship [[timeout]]" }),
      await createTask(server, { prompt: "a quay", ...hook("/hang") }),
    ];
    for (const id of ids) await waitForTerminal(server, id);
    // Refused: a 404 for a task nobody has, a 401 without a key, a path no route has.
    const unknown = crypto.randomUUID();
    expect((await server.api(`/api/gen/status/${unknown}`)).status).toBe(404);
    expect((await server.fetch(`/api/gen/status/${ids[0]}`)).status).toBe(401);
    expect((await server.api(`/api/gen/nowhere/${unknown}`)).status).toBe(404);

    // Five attempts each for the three receivers that never accept, 30 s of service time apart.
    const { text, samples } = await eventually(async () => {
      const scraped = await scrape();
      return sampleValue(scraped.samples, "genvideo_webhook_deliveries_failed_total") === 3
        ? scraped
        : undefined;
    }, 30_000);

    expect(sampleValue(samples, "genvideo_tasks_created_total")).toBe(7);
    expect(sampleValue(samples, "genvideo_tasks_created_total", { model: "gen-3" })).toBe(1);
    const ended = (outcome: string) => sampleValue(samples, "genvideo_tasks_ended_total", { outcome });
    expect([
      ended("completed"),
      ended("UNSAFE_CONTENT"),
      ended("GENERATION_FAILED"),
      ended("TIMEOUT"),
    ]).toEqual([4, 1, 1, 1]);
    expect(sampleValue(samples, "genvideo_task_refunds_total")).toBe(2);
    expect(sampleValue(samples, "genvideo_task_end_to_end_seconds_count")).toBe(7);
    // Every task is claimed, a [[timeout]] one too (it holds no render slot and waits for its deadline).
    expect(sampleValue(samples, "genvideo_task_queue_wait_seconds_count")).toBe(7);
    const attempts = (outcome: string) =>
      sampleValue(samples, "genvideo_webhook_attempts_total", { outcome });
    expect([attempts("2xx"), attempts("non_2xx"), attempts("connect_error")]).toEqual([1, 5, 5]);
    // A receiver slower than the 1 s deadline on a loaded machine would add a timeout, never remove one.
    expect(attempts("timeout")).toBeGreaterThanOrEqual(5);
    expect(sampleValue(samples, "genvideo_webhook_deliveries_delivered_total")).toBe(1);

    const statusReads = { method: "GET", route: "/api/gen/status/:task_id" };
    expect(
      sampleValue(samples, "genvideo_http_request_duration_seconds_count", {
        ...statusReads,
        status_class: "2xx",
      }),
    ).toBeGreaterThanOrEqual(6);
    expect(
      sampleValue(samples, "genvideo_http_request_duration_seconds_count", {
        ...statusReads,
        status_class: "4xx",
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, "genvideo_http_request_duration_seconds_count", {
        route: "unmatched",
        status_class: "4xx",
      }),
    ).toBeGreaterThanOrEqual(1);

    // Bounded: no id, key or path of any request is a label value, and routes are templates.
    for (const id of [...ids, unknown, TEST_API_KEY]) expect(text).not.toContain(id);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    const routes = new Set(samples.flatMap((sample) => (sample.labels.route ? [sample.labels.route] : [])));
    expect([...routes].sort()).toEqual(["/api/gen/generate", "/api/gen/status/:task_id", "unmatched"]);

    expect(sampleValue(samples, "genvideo_queue_tasks", { state: "queued" })).toBe(0);
    expect(sampleValue(samples, "genvideo_queue_tasks", { state: "processing" })).toBe(0);
    expect(sampleValue(samples, "genvideo_queue_oldest_task_age_seconds")).toBe(0);
    expect(sampleValue(samples, "genvideo_webhook_events_pending")).toBe(0);
    expect(sampleValue(samples, "genvideo_process_role", { role: "all" })).toBe(1);
    expect(sampleValue(samples, "genvideo_worker_render_slots")).toBe(2);
    expect(samples.some((sample) => sample.name === "nodejs_eventloop_lag_p99_seconds")).toBe(true);
    expect(samples.some((sample) => sample.name === "process_cpu_seconds_total")).toBe(true);
    // Tracing is off (no OTEL_* endpoint): no trace context goes out, no log line carries one.
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) expect(request.headers.traceparent).toBeUndefined();
    expect(server.logRecords().some((record) => "traceId" in record)).toBe(false);
    // SQLite has no pool to report.
    expect(samples.some((sample) => sample.name.startsWith("genvideo_postgres_pool"))).toBe(false);
  });
});
