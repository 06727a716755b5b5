import type { Context, MiddlewareHandler } from "hono";
import { callerByKeyHash, presentedKey } from "../keys/authenticate.js";
import { AUTH_MESSAGES, type AuthFailure } from "./api-error.js";
import type { EngineEnv, HttpServices } from "./engine-env.js";
import { jsonResponse } from "./json-response.js";

/**
 * Authenticates everything under /api before anything else runs: routing,
 * rate limits, body checks and even the 404 of an unknown route all come
 * after it. Only the Authorization header counts; a key in the query string
 * is never read.
 *
 * The key lookup is a transaction of its own and `next()` runs after it has
 * ended, never inside: a store may run a transaction's work again (SQLite
 * when another process wrote in between, PostgreSQL on a serialization
 * failure), and the rest of the request (the route, its response) must run
 * once. See `Store.transaction`.
 */
export function authMiddleware(services: HttpServices): MiddlewareHandler<EngineEnv> {
  return async (c, next) => {
    const presented = await presentedKey(c.req.header("authorization"));
    if (!presented.ok) return unauthorized(c, presented.failure);
    const now = services.clock.now();
    const result = await services.store.transaction((tx) => callerByKeyHash(tx, presented.hash, now));
    if (!result.ok) return unauthorized(c, result.failure);
    services.keyUsage.note(result.caller.apiKey, now);
    c.set("caller", result.caller);
    c.set("store", services.store);
    return next();
  };
}

function unauthorized(c: Context<EngineEnv>, failure: AuthFailure): Response {
  return jsonResponse(c, { error: "Unauthorized", message: AUTH_MESSAGES[failure] }, 401, {
    "WWW-Authenticate": 'Bearer realm="genvideo"',
  });
}
