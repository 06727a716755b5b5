/** The dashboard's one stylesheet, one script and its icon (no inline code: the CSP forbids it). */
import { Hono } from "hono";
import { SERVER_FAVICON } from "../../http/favicon.js";
import { DASHBOARD_CSS, DASHBOARD_JS } from "../assets.js";
import type { DashboardEnv } from "../dashboard-env.js";

export function assetRoutes(): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get("/app.css", (c) => {
    c.header("Cache-Control", "no-cache");
    return c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
  app.get("/app.js", (c) => {
    c.header("Cache-Control", "no-cache");
    return c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });
  app.get("/favicon.svg", (c) => {
    c.header("Cache-Control", "public, max-age=86400");
    return c.body(SERVER_FAVICON, 200, { "Content-Type": "image/svg+xml" });
  });
  return app;
}
