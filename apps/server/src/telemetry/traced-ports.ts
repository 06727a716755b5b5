/**
 * Spans around the engine's ports, installed only when tracing is on: one per
 * HTTP request, store transaction, render and webhook attempt. A render and a
 * webhook attempt run in a worker, often another process than the create
 * request's, so their parent is the trace context the task kept from its
 * creation (`TaskRecord.traceParent`), not whatever runs around them; and the
 * webhook request carries its attempt's `traceparent` on to the receiver.
 */

import type { EngineObserver, Renderer, Store, WebhookSender } from "@genvideo/engine";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

const tracer = trace.getTracer("genvideo-server");

/** The context a stored `traceparent` names (the root context when there is none). */
function contextOf(traceParent: string | null | undefined): Context {
  if (!traceParent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
}

/** Runs `work` in a span that ends with it, marked as an error when it throws. */
async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number> },
  parent: Context,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Transactions inside a traced operation (a request, a render) get a span of
 * their own; the worker loop's own ticks (claims, sweeps, twenty a second)
 * stay out of traces, which they would otherwise fill with empty roots.
 */
export function tracedStore(store: Store): Store {
  const traced = <T>(run: () => Promise<T>): Promise<T> =>
    trace.getActiveSpan() === undefined ? run() : inSpan("store.transaction", {}, context.active(), run);
  const { insertChargedTaskForKey } = store;
  return {
    transaction: (work, options) => traced(() => store.transaction(work, options)),
    // A create's one statement is a transaction of its own, and traced as one.
    ...(insertChargedTaskForKey && {
      insertChargedTaskForKey: (...args) => traced(() => insertChargedTaskForKey.apply(store, args)),
    }),
    close: () => store.close(),
  };
}

export function tracedRenderer(renderer: Renderer): Renderer {
  return {
    render: (job, signal) =>
      inSpan("render", { attributes: { "genvideo.task_id": job.taskId } }, contextOf(job.traceParent), () =>
        renderer.render(job, signal),
      ),
  };
}

/** The webhook attempt as a client span; its `traceparent` goes out with the request. */
export function tracedSender<S extends WebhookSender>(sender: S): S {
  const traced: WebhookSender = {
    send: (delivery, signal) =>
      inSpan(
        "webhook attempt",
        { kind: SpanKind.CLIENT, attributes: { "http.request.method": "POST" } },
        contextOf(delivery.traceParent),
        async (span) => {
          const headers = { ...delivery.headers };
          propagation.inject(context.active(), headers);
          const outcome = await sender.send({ ...delivery, headers }, signal);
          if (outcome.statusCode !== null) span.setAttribute("http.response.status_code", outcome.statusCode);
          if (!outcome.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
          return outcome;
        },
      ),
  };
  return Object.assign(Object.create(sender) as S, traced);
}

/** A server span per request, continuing the caller's trace when it sent a `traceparent`. */
export function tracedHandler(
  handler: (request: Request, env?: unknown) => Response | Promise<Response>,
): (request: Request, env?: unknown) => Promise<Response> {
  return (request, env) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, headersGetter);
    return inSpan(request.method, { kind: SpanKind.SERVER }, parent, async (span) => {
      const response = await handler(request, env);
      span.setAttribute("http.response.status_code", response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    });
  };
}

const headersGetter = {
  keys: (headers: Headers) => [...headers.keys()],
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};

/**
 * The observer's tracing half: names the request span after its route
 * template once the app knows it, and hands the engine the context a new task keeps.
 */
export const tracingObserver: Pick<EngineObserver, "httpRequest" | "traceParent"> = {
  httpRequest({ method, route }) {
    const span = trace.getActiveSpan();
    span?.updateName(`${method} ${route}`);
    span?.setAttribute("http.route", route);
  },
  traceParent() {
    const carrier: { traceparent?: string } = {};
    propagation.inject(context.active(), carrier);
    return carrier.traceparent ?? null;
  },
};
