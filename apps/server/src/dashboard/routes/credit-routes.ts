/** The credits page: balance and ledger. */
import { Hono } from "hono";
import { creditsPageBody } from "../credits-page.js";
import { type DashboardEnv, type DashboardServices, render, viewerOf } from "../dashboard-env.js";
import { page } from "../layout.js";
import { decodeCursor, nextPageHref, PAGE_SIZE } from "../pagination.js";

/** Mounted at /dashboard/credits. */
export function creditRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get("/", async (c) => {
    const viewer = viewerOf(c);
    const entries = await services.queries.listLedger(
      viewer.accountId,
      PAGE_SIZE,
      decodeCursor(c.req.query("after")),
    );
    const nextPage = nextPageHref(entries, (after) => `/dashboard/credits?after=${after}`);
    return render(c, page(viewer, "credits", "Credits", creditsPageBody(viewer.credits, entries, nextPage)));
  });
  return app;
}
