import { API_PATHS } from "@genvideo/schema";
import { Hono } from "hono";
import { ApiError } from "./api-error.js";
import { authenticated } from "./authentication.js";
import type { EngineEnv, HttpServices, RouteHandler } from "./engine-env.js";
import { errorResponse } from "./error-response.js";
import { KnownPaths } from "./known-paths.js";
import { rateLimited } from "./rate-limiting.js";
import { withRequestContext } from "./request-context.js";
import { accountRoute } from "./routes/account-route.js";
import { generateRoute } from "./routes/generate-route.js";
import { statusRoute } from "./routes/status-route.js";
import { listWebhooksRoute, redeliverWebhookRoute } from "./routes/webhook-routes.js";

/** A path of the schema's `API_PATHS` (OpenAPI `{param}` form) as a Hono route (`:param`). */
function routePath(path: (typeof API_PATHS)[keyof typeof API_PATHS]): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** Whether `path` is the API's (Hono's `/api/*`, which takes `/api` itself too): it is authenticated first. */
function underApi(path: string): boolean {
  return path.startsWith("/api/") || path === "/api";
}

/**
 * The service's HTTP face, runtime-agnostic: embedders call `app.fetch` (the
 * server through @hono/node-server, the mock from msw handlers).
 *
 * Each route is one handler: its request context (request-context.ts) around authentication,
 * its rate limit when limits are on, and the route itself. A request no route takes gets the
 * same context, authentication under /api, and a 404 (or a 405 for a known path).
 */
export function createHttpApp(services: HttpServices): Hono<EngineEnv> {
  const app = new Hono<EngineEnv>();
  const context = {
    logger: services.config.logger,
    randomUUID: services.randomUUID,
    observer: services.observer,
  };

  const known = new KnownPaths();
  const route = (method: "get" | "post", path: string, bucket: "create" | "read", handle: RouteHandler) => {
    // Without rate limits a route has no limiter at all, not one that passes.
    const limited = services.config.rateLimits.enabled ? rateLimited(services, bucket, handle) : handle;
    app[method](path, withRequestContext(context, path, authenticated(services, limited)));
    known.add(method, path);
  };
  route("post", routePath(API_PATHS.createTask), "create", generateRoute(services));
  route("get", routePath(API_PATHS.taskStatus), "read", statusRoute(services));
  route("get", routePath(API_PATHS.account), "read", accountRoute());
  route("get", routePath(API_PATHS.webhookEvents), "read", listWebhooksRoute());
  route("post", routePath(API_PATHS.webhookRedelivery), "create", redeliverWebhookRoute(services));

  const noRoute: RouteHandler = (c) => {
    // A known path asked with another method is a 405 naming the methods it takes (RFC 9110 15.5.6).
    const allowed = known.methodsOf(c.req.path);
    if (allowed.length > 0) {
      const allow = allowed.join(", ");
      throw new ApiError(
        "METHOD_NOT_ALLOWED",
        `${c.req.method} ${c.req.path} is not allowed; this path takes ${allowed.filter((m) => m !== "HEAD").join(", ")}.`,
        { headers: { Allow: allow } },
      );
    }
    throw new ApiError("NOT_FOUND", `No endpoint ${c.req.method} ${c.req.path}.`);
  };
  const authenticatedNoRoute = authenticated(services, noRoute);
  app.notFound(
    withRequestContext(context, "unmatched", (c) =>
      underApi(c.req.path) ? authenticatedNoRoute(c) : noRoute(c),
    ),
  );
  // What escapes a request's context (its log line failing, say) is answered the same way.
  app.onError((error, c) => errorResponse(c, error, services.config.logger));
  return app;
}
