import type { Context, MiddlewareHandler } from "hono";
import { type Authentication, callerByKeyHash, presentedKey } from "../keys/authenticate.js";
import type { Store, StoreTransaction } from "../ports.js";
import { AUTH_MESSAGES, type AuthFailure } from "./api-error.js";
import type { EngineEnv, HttpServices } from "./engine-env.js";
import { jsonResponse } from "./json-response.js";

/**
 * Authenticates everything under /api before anything else runs: routing,
 * rate limits, body checks and even the 404 of an unknown route all come
 * after it. Only the Authorization header counts; a key in the query string
 * is never read.
 *
 * A GET only reads, so it runs in one read transaction from the key lookup
 * to its last read: one snapshot, and one begin and commit instead of two
 * (on SQLite each read transaction takes and drops the WAL read lock). Routes
 * reach it as `c.get("store")`, whose transactions join it. Other methods
 * authenticate in a transaction of their own and get the engine's store:
 * a create must not hold the store while it reads a body or resolves DNS.
 */
export function authMiddleware(services: HttpServices): MiddlewareHandler<EngineEnv> {
  return async (c, next) => {
    const presented = await presentedKey(c.req.header("authorization"));
    if (!presented.ok) return unauthorized(c, presented.failure);
    const now = services.clock.now();
    if (c.req.method !== "GET") {
      const result = await services.store.transaction((tx) => callerByKeyHash(tx, presented.hash, now));
      if (!result.ok) return unauthorized(c, result.failure);
      c.set("caller", result.caller);
      c.set("store", services.store);
      return next();
    }
    let refused: Authentication | undefined;
    await services.store.transaction(async (tx) => {
      const result = await callerByKeyHash(tx, presented.hash, now);
      if (!result.ok) {
        refused = result;
        return;
      }
      c.set("caller", result.caller);
      c.set("store", joined(tx));
      // Errors of the route become responses inside next() (Hono's onError); none escape here.
      await next();
    });
    if (refused && !refused.ok) return unauthorized(c, refused.failure);
  };
}

function unauthorized(c: Context<EngineEnv>, failure: AuthFailure): Response {
  return jsonResponse(c, { error: "Unauthorized", message: AUTH_MESSAGES[failure] }, 401, {
    "WWW-Authenticate": 'Bearer realm="genvideo"',
  });
}

/** A store whose transactions are `tx`: what a GET reads, it reads in the request's transaction. */
function joined(tx: StoreTransaction): Store {
  return {
    transaction: (work) => work(tx),
    close: async () => undefined,
  };
}
