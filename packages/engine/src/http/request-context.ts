import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { EngineLogger, RequestLogEntry } from "../config.js";
import { type RandomUUID, requestIdFor } from "../ids.js";
import { setNoSniff } from "../no-sniff.js";
import type { EngineObserver } from "../observer.js";
import type { EngineEnv } from "./engine-env.js";
import { carriesItsRequestId } from "./json-response.js";
import { CLIENT_CLOSED_REQUEST } from "./read-json-body.js";

/**
 * Gives every request an id, returns it in `X-Request-Id` on every response
 * (errors included) with `X-Content-Type-Options: nosniff`, and logs one line
 * per request: method, path without the query string (a key sent there must
 * not reach the logs), status, duration.
 */
export function requestContext(
  logger: EngineLogger,
  randomUUID: RandomUUID,
  observer: EngineObserver = {},
): MiddlewareHandler<EngineEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFor(c.req.header("x-request-id"), randomUUID);
    c.set("requestId", requestId);
    await next();
    if (!carriesItsRequestId(c.res)) {
      c.res.headers.set("X-Request-Id", requestId);
      setNoSniff(c.res.headers);
    }
    // c.get, not c.var: c.var copies every variable into a new object on each access.
    const caller = c.get("caller");
    const status = c.res.status;
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    observer.httpRequest?.({ method: c.req.method, route: routeTemplate(c), status, durationMs });
    if (logger.request === undefined) return;
    // Optional fields assigned, not spread: the same order of keys, without two objects a request.
    const entry: RequestLogEntry = { requestId, method: c.req.method, path: c.req.path, status, durationMs };
    if (caller) entry.accountId = caller.accountId;
    if (status === CLIENT_CLOSED_REQUEST) entry.clientAborted = true;
    logger.request(entry);
  };
}

/** Paths of the app's catch-all middleware: a request that matched only these matched no route. */
const MIDDLEWARE_PATHS = new Set(["*", "/*", "/api/*"]);

/**
 * The template of the last route that matched the request, whether or not its
 * handler ran (a 401 or 429 still names its route): a bounded label, never a
 * task id from the path.
 */
function routeTemplate(c: Context<EngineEnv>): string {
  const path = routePath(c, -1);
  return MIDDLEWARE_PATHS.has(path) ? "unmatched" : path;
}
