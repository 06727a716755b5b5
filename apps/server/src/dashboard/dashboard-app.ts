/**
 * The account dashboard at `/dashboard` (docs/dashboard.md): server-rendered
 * pages on Hono's `html` templates, one static script, every defence of
 * security.ts and the session middleware in front, and every read scoped to
 * the signed-in account. Each section is a Hono app of its own under routes/.
 */
import {
  type CallbackUrlCheck,
  DATABASE_RETRY_AFTER_SECONDS,
  type Engine,
  type Store,
  type VideoStorage,
  type WebhookSender,
} from "@genvideo/engine";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { html } from "hono/html";
import type { Kysely } from "kysely";
import { type ClientAddressOf, clientAddressResolver } from "../http/client-address.js";
import type { Logger } from "../logging/logger.js";
import { DashboardQueries } from "../store/dashboard-queries.js";
import { databaseOutOfReach } from "../store/database-failure.js";
import type { Database } from "../store/tables.js";
import { type DashboardEnv, type DashboardServices, notFoundPage, render } from "./dashboard-env.js";
import { publicPage } from "./layout.js";
import { createReceiverChecker } from "./receiver-check.js";
import { assetRoutes } from "./routes/asset-routes.js";
import { creditRoutes } from "./routes/credit-routes.js";
import { keyRoutes } from "./routes/key-routes.js";
import { receiverCheckRoutes } from "./routes/receiver-check-routes.js";
import { signInRoutes } from "./routes/sign-in-routes.js";
import { taskRoutes } from "./routes/task-routes.js";
import { webhookRoutes } from "./routes/webhook-routes.js";
import { allowedHosts, hostAllowList, sameOriginWrites, securityHeaders } from "./security.js";
import { sessionMiddleware } from "./session-middleware.js";
import { sessionCookieName } from "./sessions.js";
import { createTestEventSender } from "./test-event-sender.js";

export interface DashboardOptions {
  db: Kysely<Database>;
  store: Store;
  engine: Engine;
  videoStorage: VideoStorage;
  sender: WebhookSender;
  /** The task-creation check of a callback URL, which "Check this endpoint" applies too. */
  validateCallbackUrl: (url: string) => Promise<CallbackUrlCheck>;
  publicUrl: string;
  /** Service time (task times, key expiries). */
  serviceNow: () => number;
  /** Real time (sign-in links, sessions); default `Date.now`. */
  wallNow?: () => number;
  logger: Logger;
  /** Who a request comes from (GENVIDEO_TRUSTED_PROXIES); default: the connection's peer. */
  clientAddress?: ClientAddressOf;
  /** How often a live task list polls the database (real ms); default 500. */
  pollIntervalMs?: number;
  /** GENVIDEO_TIME_SCALE: service ms per real ms; default 1. */
  timeScale?: number;
  /** How to run the CLI where the server runs (`pnpm genvideo-server`); default the bare name. */
  cliCommand?: string;
}

export interface Dashboard {
  app: Hono<DashboardEnv>;
  /** Ends the live streams so a shutdown need not wait for browsers to leave. */
  close(): void;
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const queries = new DashboardQueries(options.db);
  const wallNow = options.wallNow ?? Date.now;
  const secure = new URL(options.publicUrl).protocol === "https:";
  const closing = new AbortController();
  const services: DashboardServices = {
    queries,
    store: options.store,
    admin: options.engine.admin,
    videoStorage: options.videoStorage,
    testEvents: createTestEventSender({ ...options, queries, wallNow }),
    receiverCheck: createReceiverChecker({ ...options, admin: options.engine.admin }),
    publicUrl: options.publicUrl,
    serviceNow: options.serviceNow,
    wallNow,
    logger: options.logger,
    clientAddress: options.clientAddress ?? clientAddressResolver([]),
    timeScale: options.timeScale ?? 1,
    pollIntervalMs: options.pollIntervalMs ?? 500,
    closing: closing.signal,
    cookie: { name: sessionCookieName(secure), secure },
    cliCommand: options.cliCommand ?? "genvideo-server",
  };

  const app = new Hono<DashboardEnv>();
  app.use("*", securityHeaders([new URL(options.publicUrl).origin]));
  app.use("*", hostAllowList(allowedHosts(options.publicUrl)));
  app.use("*", bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text("Request too large.", 413) }));
  app.use("*", sameOriginWrites());
  app.use("*", sessionMiddleware(services));

  app.get("/dashboard", (c) => c.redirect("/dashboard/tasks", 303));
  app.route("/dashboard/assets", assetRoutes());
  app.route("/dashboard", signInRoutes(services));
  app.route("/dashboard/tasks", taskRoutes(services));
  app.route("/dashboard/keys", keyRoutes(services));
  app.route("/dashboard/webhooks/check", receiverCheckRoutes(services));
  app.route("/dashboard/webhooks", webhookRoutes(services));
  app.route("/dashboard/credits", creditRoutes(services));

  // Any other path: the styled page with the navigation (a sign-in page for someone signed out).
  app.notFound((c) =>
    c.get("viewer")
      ? notFoundPage(c)
      : render(
          c,
          publicPage("Not found", html`<p>There is no such page. <a href="/dashboard">The dashboard</a></p>`),
          404,
        ),
  );
  app.onError((error, c) => {
    // The database out of reach is logged once per episode by the store, not per page.
    if (databaseOutOfReach(error) !== undefined) {
      const retryAfter = DATABASE_RETRY_AFTER_SECONDS;
      return c.html(
        publicPage(
          "Database out of reach",
          html`<p>The server cannot reach its database for a moment. Reload this page in ${retryAfter} seconds; if you were making a change, look whether it was made before making it again.</p>`,
        ),
        503,
        { "Retry-After": String(retryAfter) },
      );
    }
    options.logger.error({ err: error, path: c.req.path }, "dashboard error");
    return c.text("Something went wrong; the server log has the details.", 500);
  });

  return { app, close: () => closing.abort() };
}
