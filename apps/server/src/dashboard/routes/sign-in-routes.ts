/** Sign-in with a one-time link, sign-out, and sign-out of every session (sessions.ts has the tokens). */
import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { type DashboardEnv, type DashboardServices, formField, render, viewerOf } from "../dashboard-env.js";
import { publicPage } from "../layout.js";
import { newToken, SESSION_TTL_MS, tokenHash } from "../sessions.js";
import { SignInLimiter } from "../sign-in-limiter.js";

/** Mounted at /dashboard: `/sign-in`, `/sign-out`, `/sign-out-everywhere`. */
export function signInRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const { queries, cookie, wallNow, logger } = services;
  const limiter = new SignInLimiter(wallNow);
  const linkCommand = `${services.cliCommand} dashboard link --account default`;
  const app = new Hono<DashboardEnv>();

  app.get("/sign-in", (c) => {
    const token = c.req.query("token");
    if (!token)
      return render(
        c,
        publicPage(
          "Sign in",
          html`<p>The dashboard signs in with one-time links. Get one with:</p>
<pre>${linkCommand}</pre>
<p class="muted">Run it where the server runs. A link works once, for 15 minutes. The first start of the server prints one too.</p>`,
        ),
      );
    // Opening the link signs in only once the button is pressed: link previews and
    // scanners that fetch it do not use it up.
    return render(
      c,
      publicPage(
        "Sign in",
        html`<form method="post" action="/dashboard/sign-in">
<input type="hidden" name="token" value="${token}">
<p>Sign in to the genvideo dashboard with this one-time link.</p>
<button type="submit">Sign in</button>
</form>`,
      ),
    );
  });

  app.post("/sign-in", async (c) => {
    const client = services.clientAddress(c.req.raw, c.env) ?? "unknown";
    if (!limiter.allow(client)) {
      c.header("Retry-After", "60");
      return render(
        c,
        publicPage("Too many attempts", html`<p>Too many sign-in attempts. Wait a minute.</p>`),
        429,
      );
    }
    const token = await formField(c, "token");
    const now = wallNow();
    const accountId =
      token && token.length <= 128 ? await queries.consumeSignInLink(tokenHash(token), now) : undefined;
    if (!accountId) {
      limiter.fail(client);
      logger.info({ client }, "dashboard sign-in refused");
      return render(
        c,
        publicPage(
          "Sign-in link not valid",
          html`<p class="notice error">This sign-in link was already used, has expired or is unknown. Get a new one:</p>
<pre>${linkCommand}</pre>`,
        ),
        400,
      );
    }
    await queries.deleteExpired(now);
    const session = newToken();
    await queries.insertSession(tokenHash(session), accountId, now, now + SESSION_TTL_MS);
    setCookie(c, cookie.name, session, {
      httpOnly: true,
      sameSite: "Strict",
      secure: cookie.secure,
      path: "/",
      maxAge: SESSION_TTL_MS / 1000,
    });
    logger.info({ accountId }, "dashboard sign-in");
    return c.redirect("/dashboard/tasks", 303);
  });

  app.post("/sign-out", async (c) => {
    await queries.deleteSession(c.get("sessionHash"));
    deleteCookie(c, cookie.name, { path: "/", secure: cookie.secure });
    return c.redirect("/dashboard/sign-in", 303);
  });

  app.post("/sign-out-everywhere", async (c) => {
    await queries.deleteAccountSessions(viewerOf(c).accountId);
    deleteCookie(c, cookie.name, { path: "/", secure: cookie.secure });
    return c.redirect("/dashboard/sign-in", 303);
  });

  return app;
}
