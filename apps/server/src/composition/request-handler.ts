/**
 * One `fetch` for the whole server. The engine's API is most of the traffic,
 * so it goes straight to `engine.app.fetch`; only the few paths the server answers itself are
 * picked off first, by prefix, without a second router in front of every call.
 */
import { type Engine, type HttpRequestEvent, NOSNIFF_HEADERS, setNoSniff } from "@genvideo/engine";
import { requestIdFor } from "@genvideo/engine/rules";
import type { Kysely } from "kysely";
import type { ServiceClock } from "../clock/service-clock.js";
import { openApiDocument } from "../http/openapi-document.js";
import { serverRoutes } from "../http/server-routes.js";
import { type Logger, type RequestLine, requestLine } from "../logging/logger.js";
import type { Database } from "../store/tables.js";
import type { ServedVideoStorage } from "../video/video-file-storage.js";
import { videoRoutes } from "../video/video-routes.js";

export interface RequestHandlerOptions {
  engine: Engine;
  /** Videos this process serves at `/videos/` (local files); an object store serves its own. */
  videos: ServedVideoStorage | undefined;
  db: Kysely<Database>;
  clock: ServiceClock;
  logger: Logger;
  accepting: () => boolean;
  /** The server's public URL: the OpenAPI document it serves names it as the server. */
  publicUrl: string;
  /** The dashboard's app, served under /dashboard (API role). */
  dashboard?: FetchApp;
  /** A worker process: /healthz and /readyz only, 404 for everything else. */
  healthOnly?: boolean;
  /** Told of each request the server answers itself, by route template (the engine reports its own). */
  observeRequest?: (event: HttpRequestEvent) => void;
  /** Told of each API or dashboard request answered 503 (its database out of reach), to count them. */
  answeredUnavailable?: () => void;
}

const SERVER_PATHS = new Set(["/", "/healthz", "/readyz", "/openapi.json", "/docs"]);
const HEALTH_PATHS = new Set(["/healthz", "/readyz"]);

/**
 * The server's `fetch`. Not an async function: the engine's promise goes to the Node server as it
 * is, without a promise of its own around it to settle on every request.
 */
export type RequestHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

export function createRequestHandler(options: RequestHandlerOptions): RequestHandler {
  const host = serverRoutes({
    db: options.db,
    openApiDocument: () => openApiDocument(options.publicUrl),
    accepting: options.accepting,
  });
  const videos = options.videos && videoRoutes(options.videos, { now: () => options.clock.now() });
  const engineFetch = options.engine.app.fetch;
  const reporting: LoggedOptions = {
    writeRequestLine: requestLine(options.logger),
    observeRequest: options.observeRequest,
  };

  const dashboard = options.dashboard;
  const answeredUnavailable = options.answeredUnavailable;
  // Readiness answers 503 too when the database is out of reach: a probe, not a request refused.
  const countedNow = (response: Response) => {
    if (response.status === 503) answeredUnavailable?.();
    return response;
  };
  const counted = answeredUnavailable
    ? (pending: Promise<Response> | Response) =>
        pending instanceof Promise ? pending.then(countedNow) : countedNow(pending)
    : (pending: Promise<Response> | Response) => pending;
  return (request, env) => {
    const url = request.url;
    // The path starts after "scheme://authority"; no URL object on the hot path.
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const queryStart = url.indexOf("?", pathStart);
    const path = url.slice(pathStart, queryStart === -1 ? undefined : queryStart);
    if (options.healthOnly) {
      if (HEALTH_PATHS.has(path)) return logged(host, request, path, path, reporting);
      options.observeRequest?.({ method: request.method, route: "unmatched", status: 404, durationMs: 0 });
      return Response.json(
        {
          error: "Not Found",
          code: "NOT_FOUND",
          message: "This is a worker process: it serves /healthz and /readyz only.",
        },
        { status: 404, headers: NOSNIFF_HEADERS },
      );
    }
    // The engine reads the client's address from `env` (EngineConfig.clientAddress).
    if (path.startsWith("/api/")) return counted(engineFetch(request, env));
    if (SERVER_PATHS.has(path)) return logged(host, request, path, path, reporting);
    if (path.startsWith("/docs/assets/")) return logged(host, request, path, "/docs/assets/*", reporting);
    if (videos && path.startsWith("/videos/")) return logged(videos, request, path, "/videos/*", reporting);
    if (dashboard && (path === "/dashboard" || path.startsWith("/dashboard/")))
      return counted(logged(dashboard, request, path, "/dashboard/*", reporting, env));
    return engineFetch(request, env);
  };
}

/** How `logged` reports a request: its log line, and its metric when metrics are on. */
interface LoggedOptions {
  writeRequestLine: RequestLine;
  observeRequest: RequestHandlerOptions["observeRequest"];
}

/** What `logged` serves: a Hono app of any environment. */
interface FetchApp {
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
}

/**
 * The engine logs its own requests and sets their headers; these get the same line, without an
 * account, and the same `X-Request-Id` and nosniff. `route`: the template the request metric is
 * labelled with (a bounded set, never the path itself).
 */
async function logged(
  app: FetchApp,
  request: Request,
  path: string,
  route: string,
  { writeRequestLine, observeRequest }: LoggedOptions,
  env?: unknown,
): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(request.headers.get("x-request-id"));
  const response = await app.fetch(request, env);
  const headers = new Headers(response.headers);
  headers.set("X-Request-Id", requestId);
  setNoSniff(headers);
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  observeRequest?.({ method: request.method, route, status: response.status, durationMs });
  writeRequestLine({ requestId, method: request.method, path, status: response.status, durationMs });
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
