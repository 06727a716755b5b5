import { API_PATHS } from "@genvideo/schema";
import { type Handler, Hono } from "hono";
import { StoreUnavailableError } from "../store/store-unavailable-error.js";
import { ApiError, internalErrorBody, serviceUnavailableBody } from "./api-error.js";
import { authMiddleware } from "./auth-middleware.js";
import type { EngineEnv, HttpServices } from "./engine-env.js";
import { jsonResponse } from "./json-response.js";
import { KnownPaths } from "./known-paths.js";
import { rateLimit } from "./rate-limit-middleware.js";
import { CLIENT_CLOSED_REQUEST, ClientAbortedError } from "./read-json-body.js";
import { requestContext } from "./request-context.js";
import { accountRoute } from "./routes/account-route.js";
import { generateRoute } from "./routes/generate-route.js";
import { statusRoute } from "./routes/status-route.js";
import { listWebhooksRoute, redeliverWebhookRoute } from "./routes/webhook-routes.js";

/** The create endpoint: its errors carry `success: false` like its success body. */
const CREATE_PATH = API_PATHS.createTask;

/** A path of the schema's `API_PATHS` (OpenAPI `{param}` form) as a Hono route (`:param`). */
function routePath(path: (typeof API_PATHS)[keyof typeof API_PATHS]): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/**
 * The service's HTTP face, runtime-agnostic: embedders call `app.fetch` (the
 * server through @hono/node-server, the mock from msw handlers).
 */
export function createHttpApp(services: HttpServices): Hono<EngineEnv> {
  const app = new Hono<EngineEnv>();
  app.use("*", requestContext(services.config.logger, services.randomUUID, services.observer));
  app.use("/api/*", authMiddleware(services));

  const known = new KnownPaths();
  // Without rate limits a route has no limiter in its chain at all, not one that passes.
  const route = (
    method: "get" | "post",
    path: string,
    bucket: "create" | "read",
    handler: Handler<EngineEnv>,
  ) => {
    if (services.config.rateLimits.enabled) app[method](path, rateLimit(services, bucket));
    app[method](path, handler);
    known.add(method, path);
  };
  route("post", routePath(API_PATHS.createTask), "create", generateRoute(services));
  route("get", routePath(API_PATHS.taskStatus), "read", statusRoute(services));
  route("get", routePath(API_PATHS.account), "read", accountRoute());
  route("get", routePath(API_PATHS.webhookEvents), "read", listWebhooksRoute());
  route("post", routePath(API_PATHS.webhookRedelivery), "create", redeliverWebhookRoute(services));

  app.notFound((c) => {
    // A known path asked with another method is a 405 naming the methods it takes (RFC 9110 15.5.6).
    const allowed = known.methodsOf(c.req.path);
    if (allowed.length > 0) {
      const allow = allowed.join(", ");
      const error = new ApiError(
        "METHOD_NOT_ALLOWED",
        `${c.req.method} ${c.req.path} is not allowed; this path takes ${allowed.filter((m) => m !== "HEAD").join(", ")}.`,
        { headers: { Allow: allow } },
      );
      return jsonResponse(c, error.toBody({ create: false }), error.status, error.headers);
    }
    return c.json(
      new ApiError("NOT_FOUND", `No endpoint ${c.req.method} ${c.req.path}.`).toBody({ create: false }),
      404,
    );
  });

  app.onError((error, c) => {
    const create = c.req.method === "POST" && c.req.path === CREATE_PATH;
    if (ApiError.isInstance(error)) {
      return jsonResponse(c, error.toBody({ create }), error.status, error.headers);
    }
    // Nobody is left to answer: the request log says 499, and no error is logged.
    if (ClientAbortedError.isInstance(error)) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    const requestId = c.get("requestId");
    // The database out of reach is the deployment's condition, not a bug: the store's host logs it
    // once per episode, and the client retries.
    if (StoreUnavailableError.isInstance(error)) {
      const retryAfter = error.retryAfterSeconds;
      const body = serviceUnavailableBody(requestId, retryAfter, { create }, "DATABASE_UNAVAILABLE");
      return jsonResponse(c, body, 503, {
        "Retry-After": String(retryAfter),
      });
    }
    services.config.logger.error?.("unhandled error", {
      requestId,
      method: c.req.method,
      path: c.req.path,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return c.json(internalErrorBody(requestId, { create }), 500);
  });
  return app;
}
