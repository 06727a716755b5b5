/**
 * Who is signed in, then the CSRF token of every change (docs/dashboard.md,
 * "Security"). Runs after the origin and Host checks of security.ts; the
 * sign-in page and the static assets are the only paths open without a session.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { DashboardEnv, DashboardServices } from "./dashboard-env.js";
import { formField } from "./dashboard-env.js";
import { csrfTokenMatches, csrfTokenOf, isWrite } from "./security.js";
import { tokenHash } from "./sessions.js";

const PUBLIC_PATHS = new Set([
  "/dashboard/sign-in",
  "/dashboard/assets/app.css",
  "/dashboard/assets/app.js",
  "/dashboard/assets/favicon.svg",
]);

export function sessionMiddleware(
  services: Pick<DashboardServices, "queries" | "wallNow" | "serviceNow" | "timeScale" | "cookie">,
): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const token = getCookie(c, services.cookie.name);
    const account = token
      ? await services.queries.sessionAccount(tokenHash(token), services.wallNow())
      : undefined;
    if (!token || !account) {
      if (isWrite(c.req.method)) return c.text("Refused: not signed in.", 403);
      return c.redirect("/dashboard/sign-in", 303);
    }
    if (isWrite(c.req.method)) {
      const presented = c.req.header("x-csrf-token") ?? (await formField(c, "_csrf"));
      if (!csrfTokenMatches(token, presented)) return c.text("Refused: missing or wrong CSRF token.", 403);
    }
    const clock = {
      scale: services.timeScale,
      serviceNow: services.serviceNow(),
      wallNow: services.wallNow(),
    };
    c.set("viewer", { ...account, csrfToken: csrfTokenOf(token), clock });
    c.set("sessionHash", tokenHash(token));
    return next();
  };
}
