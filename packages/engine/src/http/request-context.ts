import type { Context } from "hono";
import type { EngineLogger, RequestLogEntry } from "../config.js";
import { type RandomUUID, requestIdFor } from "../ids.js";
import { setNoSniff } from "../no-sniff.js";
import type { EngineObserver } from "../observer.js";
import type { EngineEnv, RouteHandler } from "./engine-env.js";
import { errorResponse } from "./error-response.js";
import { carriesItsRequestId } from "./json-response.js";
import { CLIENT_CLOSED_REQUEST } from "./read-json-body.js";

/** What every request's context needs: where its line goes, its id's source, who counts it. */
export interface RequestContextServices {
  logger: EngineLogger;
  randomUUID: RandomUUID;
  observer: EngineObserver;
}

/**
 * The one handler Hono runs for a route (`route`: its template, a bounded metric label) or for
 * no route (`"unmatched"`). It gives the request an id, returns it in `X-Request-Id` on every
 * response (errors included) with `X-Content-Type-Options: nosniff`, turns whatever `handle`
 * throws into the API's error body (error-response.ts), and logs one line per request: method,
 * path without the query string (a key sent there must not reach the logs), status, duration.
 *
 * One handler, not a chain of middlewares: Hono runs a route with a single handler without its
 * `compose`, whose promises and closures (one async step per middleware, each awaiting the next)
 * were 4.4 KB of a status read's 22 KB of garbage. The layers under it (authentication, rate
 * limits, the route) call each other directly.
 */
export function withRequestContext(
  services: RequestContextServices,
  route: string,
  handle: RouteHandler,
): RouteHandler {
  const { logger, observer } = services;
  const finish = (c: Context<EngineEnv>, response: Response, requestId: string, started: number) => {
    if (!carriesItsRequestId(response)) {
      response.headers.set("X-Request-Id", requestId);
      setNoSniff(response.headers);
    }
    const status = response.status;
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    observer.httpRequest?.({ method: c.req.method, route, status, durationMs });
    if (logger.request === undefined) return response;
    // Optional fields assigned, not spread: the same order of keys, without two objects a request.
    const entry: RequestLogEntry = { requestId, method: c.req.method, path: c.req.path, status, durationMs };
    // c.get, not c.var: c.var copies every variable into a new object on each access.
    const caller = c.get("caller");
    if (caller) entry.accountId = caller.accountId;
    if (status === CLIENT_CLOSED_REQUEST) entry.clientAborted = true;
    logger.request(entry);
    return response;
  };
  return (c) => {
    const started = performance.now();
    const requestId = requestIdFor(c.req.header("x-request-id"), services.randomUUID);
    c.set("requestId", requestId);
    let handled: Response | Promise<Response>;
    try {
      handled = handle(c);
    } catch (error) {
      return finish(c, errorResponse(c, error, logger), requestId, started);
    }
    if (!(handled instanceof Promise)) return finish(c, handled, requestId, started);
    return handled.then(
      (response) => finish(c, response, requestId, started),
      (error: unknown) => finish(c, errorResponse(c, error, logger), requestId, started),
    );
  };
}
