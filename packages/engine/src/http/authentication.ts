import { API_PATHS } from "@genvideo/schema";
import type { Context } from "hono";
import { type Authentication, callerByKeyHash, liveCaller, presentedKey } from "../keys/authenticate.js";
import type { Store } from "../ports.js";
import { AUTH_MESSAGES, type AuthFailure } from "./api-error.js";
import type { EngineEnv, HttpServices, RouteHandler } from "./engine-env.js";
import type { AuthAttempt } from "./failed-auth-limit.js";
import { jsonResponse } from "./json-response.js";

/**
 * Authenticates everything under /api before anything else runs: `handle` (rate
 * limits, body checks, the route, even the 404 of an unknown route) runs
 * after it. Only the Authorization header counts; a key in the query string
 * is never read.
 *
 * The key lookup is a transaction of its own and `handle` runs after it has
 * ended, never inside: a store may run a transaction's work again (SQLite
 * when another process wrote in between, PostgreSQL on a serialization
 * failure), and the rest of the request (the route, its response) must run
 * once. See `Store.transaction`.
 *
 * A status read is authenticated and read in one statement: the key and the
 * task come back together (the task only when the key's account owns it), and
 * the route answers from that read. Revocation still counts on the very
 * request after it: the key is read every time, with the task.
 *
 * A create can be authenticated by its own statement, on a store that checks
 * a key where it writes (`Store.insertChargedTaskForKey`): the middleware
 * then leaves a `keyCheck` instead of a caller, and the route concludes it
 * (`KeyCheck`) before it answers anything, so a 401 still comes first.
 *
 * A client that failed too often lately (`FailedAuthLimit`) is answered 429
 * first, before its key is looked at.
 */
export function authenticated(services: HttpServices, handle: RouteHandler): RouteHandler {
  const { failedAuth, store } = services;
  // A create's key can ride in the create's own statement where the store can check it there and
  // no rate limit needs the key's id before the create (the limiter's buckets are the key's).
  const keyCheckedCreates =
    store.insertChargedTaskForKey !== undefined && !services.config.rateLimits.enabled;
  return async (c) => {
    const header = c.req.header("authorization");
    const known = presentedKey(header);
    const presented = known instanceof Promise ? await known : known;
    const client = failedAuth && services.config.clientAddress?.(c.req.raw, c.env);
    const attempt =
      client === undefined ? undefined : failedAuth?.begin(client, presented.ok ? presented.hash : undefined);
    if (attempt?.refusal) throw attempt.refusal;
    if (!presented.ok) return refuse(c, attempt, presented.failure);
    const now = services.clock.now();
    const { hash } = presented;
    if (keyCheckedCreates && leavesKeyToCreate(c)) {
      let open = true;
      c.set("keyCheck", {
        hash,
        authenticated: (apiKey) => {
          open = false;
          conclude(c, services, attempt, now, { ok: true, caller: { accountId: apiKey.accountId, apiKey } });
        },
        refused: () => {
          open = false;
          return refuse(c, attempt, "invalid");
        },
        lookUp: async () => {
          open = false;
          let result: Authentication;
          try {
            result = await lookUp(store, hash, now);
          } catch (error) {
            return storeFailed(attempt, error);
          }
          return conclude(c, services, attempt, now, result);
        },
      });
      try {
        return await handle(c);
      } finally {
        // Never concluded: the store failed in the create's statement, or the client went away.
        if (open) attempt?.ended(false);
      }
    }
    const taskId = c.req.method === "GET" ? statusTaskIdOf(c.req.path) : undefined;
    let result: Authentication;
    try {
      if (taskId === undefined) result = await lookUp(store, hash, now);
      else {
        const found = await store.transaction((tx) => tx.getApiKeyAndTask(hash, taskId), READ_ONLY);
        result = liveCaller(found?.apiKey, hash, now);
        if (result.ok) c.set("statusRead", { taskId, task: found?.task });
      }
    } catch (error) {
      return storeFailed(attempt, error);
    }
    return conclude(c, services, attempt, now, result) ?? handle(c);
  };
}

/** A 401 for `failure`, counted against the client when a key failed. */
function refuse(c: Context<EngineEnv>, attempt: AuthAttempt | undefined, failure: AuthFailure): Response {
  // A request without credentials guesses nothing: only a key that failed counts.
  attempt?.ended(failure !== "missing");
  return unauthorized(c, failure);
}

/** The key's verdict, however it was reached: undefined once the caller is set, or the 401. */
function conclude(
  c: Context<EngineEnv>,
  services: HttpServices,
  attempt: AuthAttempt | undefined,
  now: number,
  result: Authentication,
): Response | undefined {
  if (!result.ok) return refuse(c, attempt, result.failure);
  attempt?.ended(false);
  services.keyUsage.note(result.caller.apiKey, now);
  c.set("caller", result.caller);
  c.set("store", services.store);
  return undefined;
}

/** The store failed, not the key: nothing to count against the client. */
function storeFailed(attempt: AuthAttempt | undefined, error: unknown): never {
  attempt?.ended(false);
  throw error;
}

/**
 * The largest body (by its Content-Length) of a create whose key is checked in its statement:
 * such a body is read and validated before anyone knows whether its key is live, which must cost
 * a caller without a key next to nothing. A text create is a few hundred bytes; one carrying
 * images is larger, and spends far more on them than on one round trip.
 */
const KEY_CHECKED_BODY_BYTES = 64 * 1024;

/**
 * `POST /api/gen/generate` with a small body and no Idempotency-Key (whose claim, the account's,
 * comes before the create): its key can be checked by the create's own statement.
 */
function leavesKeyToCreate(c: Context<EngineEnv>): boolean {
  if (c.req.method !== "POST" || c.req.path !== API_PATHS.createTask) return false;
  if (c.req.header("idempotency-key") !== undefined) return false;
  const length = c.req.header("content-length");
  return length !== undefined && /^\d{1,9}$/.test(length) && Number(length) <= KEY_CHECKED_BODY_BYTES;
}

function lookUp(store: Store, hash: string, now: number): Promise<Authentication> {
  return store.transaction((tx) => callerByKeyHash(tx, hash, now), READ_ONLY);
}

const READ_ONLY = { readOnly: true } as const;

/** Where `GET /api/gen/status/:task_id`'s id starts in its path. */
const STATUS_PREFIX = API_PATHS.taskStatus.replace("{task_id}", "");

/** A status path with a UUID as its id (a test, not a match: no array of groups per request). */
const STATUS_PATH = new RegExp(
  `^${STATUS_PREFIX}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`,
  "i",
);

/** `GET /api/gen/status/:task_id`'s id, lowercased, when the path is one with a UUID there. */
function statusTaskIdOf(path: string): string | undefined {
  return STATUS_PATH.test(path) ? path.slice(STATUS_PREFIX.length).toLowerCase() : undefined;
}

function unauthorized(c: Context<EngineEnv>, failure: AuthFailure): Response {
  return jsonResponse(c, { error: "Unauthorized", message: AUTH_MESSAGES[failure] }, 401, {
    "WWW-Authenticate": 'Bearer realm="genvideo"',
  });
}
