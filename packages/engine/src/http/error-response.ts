import { API_PATHS } from "@genvideo/schema";
import type { Context } from "hono";
import type { EngineLogger } from "../config.js";
import { StoreUnavailableError } from "../store/store-unavailable-error.js";
import { ApiError, internalErrorBody, serviceUnavailableBody } from "./api-error.js";
import type { EngineEnv } from "./engine-env.js";
import { jsonResponse } from "./json-response.js";
import { CLIENT_CLOSED_REQUEST, ClientAbortedError } from "./read-json-body.js";

/** The create endpoint: its errors carry `success: false` like its success body. */
const CREATE_PATH = API_PATHS.createTask;

/**
 * The answer to what a request's handling threw (docs/api.md#errors): an `ApiError` as its
 * body, the database out of reach as a 503 to retry, a client that went away as 499 (the
 * request log says so; nobody reads the body), and anything else as a 500 that quotes the
 * request id, with the error logged and never sent.
 */
export function errorResponse(c: Context<EngineEnv>, error: unknown, logger: EngineLogger): Response {
  const create = c.req.method === "POST" && c.req.path === CREATE_PATH;
  if (ApiError.isInstance(error)) {
    return jsonResponse(c, error.toBody({ create }), error.status, error.headers);
  }
  if (ClientAbortedError.isInstance(error)) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
  const requestId = c.get("requestId");
  // The database out of reach is the deployment's condition, not a bug: the store's host logs it
  // once per episode, and the client retries.
  if (StoreUnavailableError.isInstance(error)) {
    const retryAfter = error.retryAfterSeconds;
    const body = serviceUnavailableBody(requestId, retryAfter, { create }, "DATABASE_UNAVAILABLE");
    return jsonResponse(c, body, 503, { "Retry-After": String(retryAfter) });
  }
  logger.error?.("unhandled error", {
    requestId,
    method: c.req.method,
    path: c.req.path,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return c.json(internalErrorBody(requestId, { create }), 500);
}
