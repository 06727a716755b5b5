import type { MiddlewareHandler } from "hono";
import { authenticate } from "../keys/authenticate.js";
import { AUTH_MESSAGES } from "./api-error.js";
import type { EngineEnv, HttpServices } from "./engine-env.js";

/**
 * Authenticates everything under /api before anything else runs: routing,
 * rate limits, body checks and even the 404 of an unknown route all come
 * after it. Only the Authorization header counts; a key in the query string
 * is never read.
 */
export function authMiddleware(services: HttpServices): MiddlewareHandler<EngineEnv> {
  return async (c, next) => {
    const result = await authenticate(services.store, c.req.header("authorization"), services.clock.now());
    if (!result.ok) {
      return c.json({ error: "Unauthorized", message: AUTH_MESSAGES[result.failure] }, 401, {
        "WWW-Authenticate": 'Bearer realm="genvideo"',
      });
    }
    c.set("caller", result.caller);
    await next();
  };
}
