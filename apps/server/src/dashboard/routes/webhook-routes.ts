/** The webhooks page: signing secrets and their rotation, the test event, the delivery log. */
import { Hono } from "hono";
import {
  type DashboardContext,
  type DashboardEnv,
  type DashboardServices,
  formChoice,
  formField,
  render,
  viewerOf,
} from "../dashboard-env.js";
import { redirectWithFlash, takeFlash } from "../flash.js";
import { OVERLAP_CHOICES } from "../format.js";
import { page } from "../layout.js";
import { decodeCursor, nextPageHref } from "../pagination.js";
import {
  type LoggedEvent,
  loggedTestEvent,
  type WebhooksPageData,
  webhooksPageBody,
} from "../webhooks-pages.js";

type PageExtras = Pick<WebhooksPageData, "newSecret" | "overlapMs" | "testOutcome" | "testUrl" | "problem">;

const WEBHOOKS_PAGE = "/dashboard/webhooks";
/** Events a page of the delivery log shows: fewer than a list's rows, as each is a card. */
const LOG_PAGE_SIZE = 20;

/** Mounted at /dashboard/webhooks. */
export function webhookRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const { queries, admin } = services;
  const app = new Hono<DashboardEnv>();

  const webhooksPage = async (c: DashboardContext) => {
    const viewer = viewerOf(c);
    const extra = takeFlash<PageExtras>(c, services, WEBHOOKS_PAGE) ?? {};
    const cursor = decodeCursor(c.req.query("after"));
    const [secrets, taskEvents, testEvents] = await Promise.all([
      queries.webhookSecretTimes(viewer.accountId),
      queries.listWebhookEvents(viewer.accountId, LOG_PAGE_SIZE, cursor),
      queries.listTestEvents(viewer.accountId, LOG_PAGE_SIZE, cursor),
    ]);
    // One log, newest first: a page of each kind after the cursor, merged, cut to a page.
    const events: LoggedEvent[] = [
      ...taskEvents.map((e) => ({ ...e, attempts: [] })),
      ...testEvents.map(loggedTestEvent),
    ]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, LOG_PAGE_SIZE);
    const attempts = await queries.webhookAttempts(events.filter((e) => !e.test).map((e) => e.id));
    for (const event of events)
      if (!event.test) event.attempts = attempts.filter((attempt) => attempt.eventId === event.id);
    const nextPage = nextPageHref(events, (after) => `${WEBHOOKS_PAGE}?after=${after}`, LOG_PAGE_SIZE);
    const body = webhooksPageBody(viewer, {
      secrets,
      serviceNow: services.serviceNow(),
      events,
      ...(nextPage ? { nextPage } : {}),
      ...extra,
    });
    return render(c, page(viewer, "webhooks", "Webhooks", body));
  };
  /** Every form answers with a redirect to the page (post/redirect/get), its outcome in a flash. */
  const backToPage = (c: DashboardContext, extra: PageExtras, fragment = "") =>
    redirectWithFlash(c, services, `${WEBHOOKS_PAGE}${fragment}`, extra);

  app.get("/", (c) => webhooksPage(c));

  app.post("/rotate-secret", async (c) => {
    const viewer = viewerOf(c);
    const overlap = await formChoice(c, "overlap", OVERLAP_CHOICES);
    if (!overlap) return backToPage(c, { problem: "Choose an overlap from the list." });
    const secret = await admin.rotateWebhookSecret(viewer.accountId, overlap.ms);
    services.logger.info({ accountId: viewer.accountId }, "dashboard rotated the webhook signing secret");
    return backToPage(c, { newSecret: secret, overlapMs: overlap.ms });
  });

  app.post("/test", async (c) => {
    const url = (await formField(c, "url"))?.trim() ?? "";
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:"))
      return backToPage(c, { problem: "The test event needs an http(s) URL.", testUrl: url }, "#test-event");
    const testOutcome = await services.testEvents.send(viewerOf(c).accountId, parsed);
    return backToPage(c, { testOutcome }, "#test-event");
  });

  return app;
}
