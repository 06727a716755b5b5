/** POST /dashboard/webhooks/check: "Check this endpoint" on the webhooks page. */
import { Hono } from "hono";
import { type DashboardEnv, type DashboardServices, formField, render, viewerOf } from "../dashboard-env.js";
import { page } from "../layout.js";
import { receiverCheckPageBody } from "../receiver-check-page.js";

/** Mounted at /dashboard/webhooks/check. */
export function receiverCheckRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();

  app.post("/", async (c) => {
    const viewer = viewerOf(c);
    const url = (await formField(c, "url"))?.trim() ?? "";
    const outcome = URL.canParse(url)
      ? await services.receiverCheck.check(viewer.accountId, url)
      : { refused: "give the receiver's full URL, like https://example.com/webhooks/genvideo." };
    const body = receiverCheckPageBody(viewer, url, outcome, services.cliCommand);
    return render(c, page(viewer, "webhooks", "Receiver check", body), "refused" in outcome ? 400 : 200);
  });

  return app;
}
