import { API_PATHS } from "@genvideo/schema";
import type { Context, MiddlewareHandler } from "hono";
import { type Authentication, callerByKeyHash, liveCaller, presentedKey } from "../keys/authenticate.js";
import type { Store, TaskRecord } from "../ports.js";
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
 *
 * A status read is authenticated and read in one statement: the key and the
 * task come back together (the task only when the key's account owns it), and
 * the route answers from that read. Revocation still counts on the very
 * request after it: the key is read every time, with the task.
 *
 * A client that failed too often lately (`FailedAuthLimit`) is answered 429
 * first, before its key is looked at.
 */
export function authMiddleware(services: HttpServices): MiddlewareHandler<EngineEnv> {
  const { failedAuth } = services;
  return async (c, next) => {
    const presented = await presentedKey(c.req.header("authorization"));
    const client = failedAuth && services.config.clientAddress?.(c.req.raw, c.env);
    const attempt =
      client === undefined ? undefined : failedAuth?.begin(client, presented.ok ? presented.hash : undefined);
    if (attempt?.refusal) throw attempt.refusal;
    const refuse = (failure: AuthFailure) => {
      // A request without credentials guesses nothing: only a key that failed counts.
      attempt?.ended(failure !== "missing");
      return unauthorized(c, failure);
    };
    if (!presented.ok) return refuse(presented.failure);
    const now = services.clock.now();
    const taskId = c.req.method === "GET" ? statusTaskIdOf(c.req.path) : undefined;
    const { result, task } = await (taskId === undefined
      ? services.store
          .transaction((tx) => callerByKeyHash(tx, presented.hash, now), READ_ONLY)
          .then((result) => ({ result, task: undefined }))
      : callerWithTask(services.store, presented.hash, taskId, now)
    ).catch((error: unknown) => {
      // The store failed, not the key: nothing to count against the client.
      attempt?.ended(false);
      throw error;
    });
    if (!result.ok) return refuse(result.failure);
    attempt?.ended(false);
    if (taskId !== undefined) c.set("statusRead", { taskId, task });
    services.keyUsage.note(result.caller.apiKey, now);
    c.set("caller", result.caller);
    c.set("store", services.store);
    return next();
  };
}

const READ_ONLY = { readOnly: true } as const;

/** `GET /api/gen/status/:task_id`'s id, lowercased, when the path is one with a UUID there. */
const STATUS_PATH = new RegExp(
  `^${API_PATHS.taskStatus.replace("{task_id}", "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")}$`,
  "i",
);

function statusTaskIdOf(path: string): string | undefined {
  return STATUS_PATH.exec(path)?.[1]?.toLowerCase();
}

async function callerWithTask(
  store: Store,
  hash: string,
  taskId: string,
  now: number,
): Promise<{ result: Authentication; task: TaskRecord | undefined }> {
  const found = await store.transaction((tx) => tx.getApiKeyAndTask(hash, taskId), READ_ONLY);
  return { result: liveCaller(found?.apiKey, hash, now), task: found?.task };
}

function unauthorized(c: Context<EngineEnv>, failure: AuthFailure): Response {
  return jsonResponse(c, { error: "Unauthorized", message: AUTH_MESSAGES[failure] }, 401, {
    "WWW-Authenticate": 'Bearer realm="genvideo"',
  });
}
