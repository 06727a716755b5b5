/** "Check this endpoint" on the webhooks page: the check (POST), then its report on a page of its own (GET). */
import { Hono } from "hono";
import { type DashboardEnv, type DashboardServices, formField, render, viewerOf } from "../dashboard-env.js";
import { redirectWithFlash, takeFlash } from "../flash.js";
import { page } from "../layout.js";
import { type CheckedReceiver, receiverCheckPageBody } from "../receiver-check-page.js";

const CHECK_PAGE = "/dashboard/webhooks/check";
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Mounted at /dashboard/webhooks/check. */
export function receiverCheckRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();

  // The report of the check just run (once), or the form alone: a reload or a bookmark works.
  app.get("/", (c) => {
    const checked = takeFlash<CheckedReceiver>(c, services, CHECK_PAGE);
    const body = receiverCheckPageBody(viewerOf(c), checked, services.cliCommand);
    return render(c, page(viewerOf(c), "webhooks", "Receiver check", body));
  });

  app.post("/", async (c) => {
    const viewer = viewerOf(c);
    const url = (await formField(c, "url"))?.trim() ?? "";
    const taskId = (await formField(c, "task"))?.trim().toLowerCase() ?? "";
    const fields = { url, ...(taskId ? { taskId } : {}) };
    const refuse = (refused: string) =>
      redirectWithFlash(c, services, CHECK_PAGE, { fields, outcome: { refused } });
    if (!URL.canParse(url))
      return refuse("give the receiver's full URL, like https://example.com/webhooks/genvideo.");
    if (taskId && !TASK_ID.test(taskId)) return refuse(`"${taskId}" is not a task id (a UUID).`);
    if (taskId && (await services.queries.tasksByIds(viewer.accountId, [taskId])).length === 0)
      return refuse(`this account has no task ${taskId}.`);
    const outcome = await services.receiverCheck.check(viewer.accountId, url, taskId || undefined);
    if ("refused" in outcome) return refuse(outcome.refused);
    // The answers' excerpts stay out: the page shows what happened, and a cookie is small.
    const report = {
      ...outcome.report,
      cases: outcome.report.cases.map(({ answer: _answer, ...entry }) => entry),
    };
    return redirectWithFlash(c, services, CHECK_PAGE, { fields, outcome: { ...outcome, report } });
  });

  return app;
}
