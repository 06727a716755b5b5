/**
 * One task, one trace, two processes: the create request (api process, exporting OTLP
 * http/protobuf) and the task's render and webhook attempt (worker process, OTLP http/json)
 * land in one trace at an OTLP/HTTP receiver run by the test, the webhook request carries its
 * attempt's `traceparent`, and the api's log line for the create carries the trace id.
 */
import { createServer, type IncomingMessage } from "node:http";
import { afterAll, expect, it } from "vitest";
import { listenOnLoopback } from "../../src/testing/loopback.js";
import { waitForTerminal } from "../support/api.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { answering, startReceiver } from "../support/receivers.js";
import { eventually, FAST_SERVICE_ENV, temporaryDataDir } from "../support/server-process.js";
import { serverSet } from "../support/use-server.js";

interface Export {
  contentType: string;
  body: Buffer;
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** An OTLP/HTTP receiver: keeps every export posted to /v1/traces and answers as a collector does. */
async function startOtlpReceiver() {
  const exports: Export[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST" && request.url === "/v1/traces")
        exports.push({ contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      const json = request.headers["content-type"] === "application/json";
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      response.end(json ? "{}" : undefined);
    });
  });
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function jsonSpans(exports: Export[]): JsonSpan[] {
  return exports
    .filter((posted) => posted.contentType === "application/json")
    .flatMap((posted) => {
      const body = JSON.parse(posted.body.toString("utf8")) as {
        resourceSpans: { scopeSpans: { spans: JsonSpan[] }[] }[];
      };
      return body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    });
}

const cleanups: (() => Promise<void> | void)[] = [];
const servers = serverSet({
  after: afterAll,
  afterStop: async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  },
});

describePostgres("traces across processes", () => {
  it("carry one task from its create request to its webhook attempt", { timeout: 240_000 }, async () => {
    const url = await freshDatabase();
    const dataDir = servers.removeLater(temporaryDataDir());
    const otlp = await startOtlpReceiver();
    cleanups.push(() => otlp.close());
    const hooks = await startReceiver(answering(204));
    cleanups.push(() => hooks.close());

    const env = (role: string, protocol: string, service: string) => ({
      ...FAST_SERVICE_ENV,
      GENVIDEO_TIME_SCALE: "60",
      GENVIDEO_DATABASE_URL: url,
      GENVIDEO_ROLE: role,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: service,
    });
    const start = (role: string, protocol: string, service: string) =>
      servers.start({ dataDir, startTimeoutMs: 180_000, env: env(role, protocol, service) });
    const api = await start("api", "http/protobuf", "genvideo-api");
    const worker = await start("worker", "http/json", "genvideo-worker");

    // The client starts the trace: its own traceparent on the create request.
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const clientSpanId = "00f067aa0ba902b7";
    const response = await api.api("/api/gen/generate", {
      json: { prompt: "a lighthouse at dusk", callback_url: `${hooks.origin}/hook` },
      headers: { traceparent: `00-${traceId}-${clientSpanId}-01` },
    });
    expect(response.status).toBe(200);
    const { task_id: taskId } = (await response.json()) as { task_id: string };
    expect((await waitForTerminal(api, taskId, 60_000)).status).toBe("completed");
    const delivered = await eventually(async () => hooks.requests[0], 30_000, "the webhook");

    // The webhook request continues the trace: same trace id, the attempt's span as parent.
    const traceparent = String(delivered.headers.traceparent);
    expect(traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const attemptSpanId = traceparent.split("-")[2];

    // Stopping flushes each process's batched spans to the receiver.
    await servers.stopAll();

    const spans = jsonSpans(otlp.exports).filter((span) => span.traceId === traceId);
    const render = spans.find((span) => span.name === "render");
    const attempt = spans.find((span) => span.name === "webhook attempt");
    expect(render, "the worker exported the render's span").toBeDefined();
    expect(attempt?.spanId).toBe(attemptSpanId);
    // Both hang under the span of the create request, exported by the api process (protobuf).
    expect(render?.parentSpanId).toBe(attempt?.parentSpanId);
    const createSpanId = render?.parentSpanId as string;
    expect(createSpanId).toMatch(/^[0-9a-f]{16}$/);
    const protobuf = otlp.exports.filter((posted) => posted.contentType === "application/x-protobuf");
    expect(protobuf.length).toBeGreaterThan(0);
    const apiExport = Buffer.concat(protobuf.map((posted) => posted.body));
    expect(apiExport.includes(Buffer.from(traceId, "hex"))).toBe(true);
    expect(apiExport.includes(Buffer.from(createSpanId, "hex"))).toBe(true);
    // Its parent is the client's span, and the request span is named by its route.
    expect(apiExport.includes(Buffer.from(clientSpanId, "hex"))).toBe(true);
    expect(apiExport.includes(Buffer.from("POST /api/gen/generate"))).toBe(true);
    expect(apiExport.includes(Buffer.from("store.transaction"))).toBe(true);
    expect(apiExport.includes(Buffer.from("genvideo-api"))).toBe(true);

    // The api's log line for the create carries the trace and the request span.
    const line = api
      .logRecords()
      .find((record) => record.msg === "request" && record.path === "/api/gen/generate");
    expect(line).toMatchObject({ traceId, spanId: createSpanId });
    expect(worker.output()).toContain('"tracing":"OTLP http/json"');
  });
});
