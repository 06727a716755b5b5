/**
 * The account dashboard at `/dashboard` (docs/dashboard.md): server-rendered
 * pages on Hono's `html` templates, one static script, every defence of
 * security.ts in front, and every read scoped to the signed-in account.
 */
import type { Engine, Store, VideoStorage, WebhookSender } from "@genvideo/engine";
import { AdminError, signWebhook } from "@genvideo/engine";
import { getConnInfo } from "@hono/node-server/conninfo";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { streamSSE } from "hono/streaming";
import type { Kysely } from "kysely";
import type { Logger } from "../logging/logger.js";
import { DashboardQueries } from "../store/dashboard-queries.js";
import type { Database } from "../store/tables.js";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets.js";
import { creditsPageBody } from "./credits-page.js";
import { EXPIRY_CHOICES, OVERLAP_CHOICES } from "./format.js";
import { keysPageBody, overlapMessage, revokeKeyBody, rotateKeyBody } from "./keys-pages.js";
import { type Html, page, publicPage, type Viewer } from "./layout.js";
import {
  allowedHosts,
  csrfTokenMatches,
  csrfTokenOf,
  hostAllowList,
  isWrite,
  sameOriginWrites,
  securityHeaders,
} from "./security.js";
import { newToken, SESSION_TTL_MS, sessionCookieName, tokenHash } from "./sessions.js";
import { SignInLimiter } from "./sign-in-limiter.js";
import { liveTaskStream } from "./task-stream.js";
import {
  decodeCursor,
  encodeCursor,
  listQueryString,
  parseTaskListQuery,
  requestImages,
  TASK_PAGE_SIZE,
  taskListBody,
  taskPageBody,
} from "./tasks-pages.js";
import {
  type LoggedEvent,
  loggedTestEvent,
  type TestEventOutcome,
  webhooksPageBody,
} from "./webhooks-pages.js";

export interface DashboardOptions {
  db: Kysely<Database>;
  store: Store;
  engine: Engine;
  videoStorage: VideoStorage;
  sender: WebhookSender;
  publicUrl: string;
  /** Service time (task times, key expiries). */
  serviceNow: () => number;
  /** Real time (sign-in links, sessions); default `Date.now`. */
  wallNow?: () => number;
  logger: Logger;
  /** How often a live task list polls the database (real ms); default 500. */
  pollIntervalMs?: number;
  /** GENVIDEO_TIME_SCALE: service ms per real ms; default 1. */
  timeScale?: number;
}

export interface Dashboard {
  app: Hono<DashboardEnv>;
  /** Ends the live streams so a shutdown need not wait for browsers to leave. */
  close(): void;
}

interface DashboardEnv {
  Variables: { viewer: Viewer; sessionHash: string; mediaOrigin?: string };
}

const PUBLIC_PATHS = new Set(["/dashboard/sign-in", "/dashboard/assets/app.css", "/dashboard/assets/app.js"]);
const LIST_PAGE_SIZE = 50;
const TEST_EVENT_TIMEOUT_MS = 35_000;
const TEST_EVENT_TASK_ID = "00000000-0000-4000-8000-000000000000";
/**
 * How late (real time) a task may become visible after a newer one and still
 * reach an open list: a slow create request, or the clocks of processes on one
 * PostgreSQL a little apart.
 */
const LATE_COMMIT_MS = 10_000;

export function createDashboard(options: DashboardOptions): Dashboard {
  const queries = new DashboardQueries(options.db);
  const wallNow = options.wallNow ?? Date.now;
  const secure = new URL(options.publicUrl).protocol === "https:";
  const cookieName = sessionCookieName(secure);
  const limiter = new SignInLimiter(wallNow);
  const closing = new AbortController();
  const admin = options.engine.admin;
  const app = new Hono<DashboardEnv>();

  app.use("*", securityHeaders([new URL(options.publicUrl).origin]));
  app.use("*", hostAllowList(allowedHosts(options.publicUrl)));
  app.use("*", bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text("Request too large.", 413) }));
  app.use("*", sameOriginWrites());

  // Who is signed in, then the CSRF token of every change.
  app.use("*", async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const token = getCookie(c, cookieName);
    const account = token ? await queries.sessionAccount(tokenHash(token), wallNow()) : undefined;
    if (!token || !account) {
      if (isWrite(c.req.method)) return c.text("Refused: not signed in.", 403);
      return c.redirect("/dashboard/sign-in", 303);
    }
    if (isWrite(c.req.method)) {
      const presented = c.req.header("x-csrf-token") ?? (await formField(c, "_csrf"));
      if (!csrfTokenMatches(token, presented)) return c.text("Refused: missing or wrong CSRF token.", 403);
    }
    c.set("viewer", { ...account, csrfToken: csrfTokenOf(token) });
    c.set("sessionHash", tokenHash(token));
    return next();
  });

  const render = (c: Context<DashboardEnv>, body: Html, status: 200 | 400 | 404 | 403 | 429 = 200) =>
    c.html(body, status);
  const view = (c: Context<DashboardEnv>) => c.get("viewer");

  app.get("/dashboard/assets/app.css", (c) => {
    c.header("Cache-Control", "no-cache");
    return c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
  app.get("/dashboard/assets/app.js", (c) => {
    c.header("Cache-Control", "no-cache");
    return c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });

  // ---- sign-in ----

  app.get("/dashboard/sign-in", (c) => {
    const token = c.req.query("token");
    if (!token)
      return render(
        c,
        publicPage(
          "Sign in",
          html`<p>The dashboard signs in with one-time links. Get one with:</p>
<pre>genvideo-server dashboard link --account default</pre>
<p class="muted">A link works once, for 15 minutes. The first start of the server prints one too.</p>`,
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

  app.post("/dashboard/sign-in", async (c) => {
    const client = clientAddress(c);
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
      options.logger.info({ client }, "dashboard sign-in refused");
      return render(
        c,
        publicPage(
          "Sign-in link not valid",
          html`<p class="notice error">This sign-in link was already used, has expired or is unknown. Get a new one:</p>
<pre>genvideo-server dashboard link --account default</pre>`,
        ),
        400,
      );
    }
    await queries.deleteExpired(now);
    const session = newToken();
    await queries.insertSession(tokenHash(session), accountId, now, now + SESSION_TTL_MS);
    setCookie(c, cookieName, session, {
      httpOnly: true,
      sameSite: "Strict",
      secure,
      path: "/",
      maxAge: SESSION_TTL_MS / 1000,
    });
    options.logger.info({ accountId }, "dashboard sign-in");
    return c.redirect("/dashboard/tasks", 303);
  });

  app.post("/dashboard/sign-out", async (c) => {
    await queries.deleteSession(c.get("sessionHash"));
    deleteCookie(c, cookieName, { path: "/", secure });
    return c.redirect("/dashboard/sign-in", 303);
  });

  app.post("/dashboard/sign-out-everywhere", async (c) => {
    await queries.deleteAccountSessions(view(c).accountId);
    deleteCookie(c, cookieName, { path: "/", secure });
    return c.redirect("/dashboard/sign-in", 303);
  });

  // ---- tasks ----

  app.get("/dashboard", (c) => c.redirect("/dashboard/tasks", 303));

  app.get("/dashboard/tasks", async (c) => {
    const viewer = view(c);
    const query = parseTaskListQuery((name) => c.req.query(name));
    const tasks = await queries.listTasks(viewer.accountId, query.filter, TASK_PAGE_SIZE, query.cursor);
    const newest = tasks[0];
    const live = {
      ...(query.cursor ? {} : { since: newest ? encodeCursor(newest) : "0_" }),
      watch: tasks
        .filter((t) => t.state === "queued" || t.state === "processing")
        .map((t) => t.id)
        .join(","),
    };
    const liveUrl = `/dashboard/tasks/stream${listQueryString(query.values, live)}`;
    return render(c, page(viewer, "tasks", "Tasks", taskListBody(query, tasks, liveUrl)));
  });

  app.get("/dashboard/tasks/stream", (c) => {
    const viewer = view(c);
    const query = parseTaskListQuery((name) => c.req.query(name));
    return streamSSE(c, (stream) =>
      liveTaskStream(stream, {
        queries,
        accountId: viewer.accountId,
        filter: query.filter,
        since: query.cursor ? undefined : decodeSince(c.req.query("since")),
        watch: (c.req.query("watch") ?? "").split(",").filter((id) => /^[0-9a-f-]{36}$/.test(id)),
        intervalMs: options.pollIntervalMs ?? 500,
        lookbackMs: LATE_COMMIT_MS * (options.timeScale ?? 1),
        closing: closing.signal,
      }),
    );
  });

  app.get("/dashboard/tasks/:id", async (c) => {
    const viewer = view(c);
    const task = await ownTask(c.req.param("id"), viewer.accountId);
    if (!task) return notFound(c, viewer);
    const [ledger, events] = await Promise.all([
      queries.taskLedger(viewer.accountId, task.id),
      admin.listWebhookEvents(task.id),
    ]);
    const videoUrl =
      task.state === "completed" && task.videoKey
        ? await options.videoStorage.signedUrl(task.videoKey, task.id, options.serviceNow())
        : undefined;
    if (videoUrl) c.set("mediaOrigin", new URL(videoUrl).origin);
    const statusUrl = new URL(`/api/gen/status/${task.id}`, options.publicUrl).href;
    return render(
      c,
      page(
        viewer,
        "tasks",
        "Task",
        taskPageBody(viewer, {
          task,
          ledger,
          events,
          statusUrl,
          serviceNow: options.serviceNow(),
          ...(videoUrl ? { videoUrl } : {}),
        }),
      ),
    );
  });

  app.get("/dashboard/tasks/:id/images/:index", async (c) => {
    const viewer = view(c);
    const task = await ownTask(c.req.param("id"), viewer.accountId);
    const image =
      task && requestImages(task.request as unknown as Record<string, unknown>)[Number(c.req.param("index"))];
    const match = image && /^data:(image\/(?:png|jpeg|webp));base64,(.*)$/s.exec(image.dataUrl);
    if (!match) return c.text("Not found.", 404);
    c.header("Cache-Control", "private, max-age=3600");
    return c.body(Buffer.from(match[2]!, "base64"), 200, { "Content-Type": match[1]! });
  });

  app.post("/dashboard/tasks/:id/redeliver", async (c) => {
    const viewer = view(c);
    const task = await ownTask(c.req.param("id"), viewer.accountId);
    if (!task) return notFound(c, viewer);
    await admin.redeliver(task.id);
    const back = await formField(c, "back");
    return c.redirect(back === "webhooks" ? "/dashboard/webhooks" : `/dashboard/tasks/${task.id}`, 303);
  });

  // ---- API keys ----

  const keysPage = async (
    c: Context<DashboardEnv>,
    extra: Omit<Parameters<typeof keysPageBody>[1], "keys" | "serviceNow"> = {},
    status: 200 | 400 = 200,
  ) => {
    const viewer = view(c);
    const keys = await admin.listApiKeys(viewer.accountId);
    return render(
      c,
      page(
        viewer,
        "keys",
        "API keys",
        keysPageBody(viewer, { keys, serviceNow: options.serviceNow(), ...extra }),
      ),
      status,
    );
  };
  const ownKey = async (c: Context<DashboardEnv>) =>
    (await admin.listApiKeys(view(c).accountId)).find((key) => key.id === c.req.param("id"));

  app.get("/dashboard/keys", (c) => keysPage(c));

  app.post("/dashboard/keys", async (c) => {
    const viewer = view(c);
    const expires = await formField(c, "expires");
    const expiry = EXPIRY_CHOICES.find((choice) => choice.value === expires);
    if (!expiry) return keysPage(c, { problem: "Choose an expiry from the list." }, 400);
    // The form's one-time nonce, claimed in the database: the same form posted again (a reload,
    // the back button, another API process) creates and shows no second key.
    const nonce = await formField(c, "_form");
    if (
      nonce &&
      /^[0-9a-f-]{36}$/.test(nonce) &&
      !(await queries.claimFormNonce(nonce, viewer.accountId, wallNow()))
    )
      return keysPage(c, { message: "That key was already created and shown once; it is not shown again." });
    try {
      const created = await admin.createApiKey(viewer.accountId, {
        name: (await formField(c, "name")) ?? "",
        expiresAt: expiry.ms === null ? null : options.serviceNow() + expiry.ms,
      });
      options.logger.info(
        { accountId: viewer.accountId, keyId: created.apiKey.id },
        "dashboard created an API key",
      );
      return keysPage(c, { created: { key: created.key, summary: created.apiKey } });
    } catch (error) {
      if (AdminError.isInstance(error)) return keysPage(c, { problem: error.message }, 400);
      throw error;
    }
  });

  app.get("/dashboard/keys/:id/rotate", async (c) => {
    const key = await ownKey(c);
    if (!key || key.revokedAt !== null) return notFound(c, view(c));
    return render(c, page(view(c), "keys", "Rotate a key", rotateKeyBody(view(c), key)));
  });

  app.post("/dashboard/keys/:id/rotate", async (c) => {
    const key = await ownKey(c);
    if (!key) return notFound(c, view(c));
    const overlapValue = await formField(c, "overlap");
    const overlap = OVERLAP_CHOICES.find((choice) => choice.value === overlapValue);
    if (!overlap) return keysPage(c, { problem: "Choose an overlap from the list." }, 400);
    try {
      const rotated = await admin.rotateApiKey(key.id, overlap.ms);
      options.logger.info(
        { accountId: key.accountId, keyId: rotated.apiKey.id, replaced: key.id },
        "dashboard rotated an API key",
      );
      return keysPage(c, {
        created: { key: rotated.key, summary: rotated.apiKey, replaced: rotated.previous },
        message: `Rotated "${key.name || "unnamed"}". ${overlapMessage(overlap.ms)}`,
      });
    } catch (error) {
      if (AdminError.isInstance(error)) return keysPage(c, { problem: error.message }, 400);
      throw error;
    }
  });

  app.get("/dashboard/keys/:id/revoke", async (c) => {
    const key = await ownKey(c);
    if (!key || key.revokedAt !== null) return notFound(c, view(c));
    return render(c, page(view(c), "keys", "Revoke a key", revokeKeyBody(view(c), key)));
  });

  app.post("/dashboard/keys/:id/revoke", async (c) => {
    const key = await ownKey(c);
    if (!key) return notFound(c, view(c));
    await admin.revokeApiKey(key.id);
    options.logger.info({ accountId: key.accountId, keyId: key.id }, "dashboard revoked an API key");
    return keysPage(c, {
      message: `Revoked "${key.name || "unnamed"}" (${key.prefix}…): refused from its next request on.`,
    });
  });

  // ---- webhooks ----

  const webhooksPage = async (
    c: Context<DashboardEnv>,
    extra: { newSecret?: string; overlapMs?: number; testOutcome?: TestEventOutcome; problem?: string } = {},
    status: 200 | 400 = 200,
  ) => {
    const viewer = view(c);
    const cursor = decodeSince(c.req.query("after"));
    const [secrets, taskEvents, testEvents] = await Promise.all([
      queries.webhookSecretTimes(viewer.accountId),
      queries.listWebhookEvents(viewer.accountId, LIST_PAGE_SIZE, cursor),
      queries.listTestEvents(viewer.accountId, LIST_PAGE_SIZE, cursor),
    ]);
    // One log, newest first: a page of each kind after the cursor, merged, cut to a page.
    const events: LoggedEvent[] = [
      ...taskEvents.map((e) => ({ ...e, attempts: [] })),
      ...testEvents.map(loggedTestEvent),
    ]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, LIST_PAGE_SIZE);
    const attempts = await queries.webhookAttempts(events.filter((e) => !e.test).map((e) => e.id));
    for (const event of events)
      if (!event.test) event.attempts = attempts.filter((attempt) => attempt.eventId === event.id);
    const last = events.at(-1);
    const nextPage =
      events.length === LIST_PAGE_SIZE && last
        ? `/dashboard/webhooks?after=${encodeCursor(last)}`
        : undefined;
    return render(
      c,
      page(
        viewer,
        "webhooks",
        "Webhooks",
        webhooksPageBody(viewer, {
          secrets,
          serviceNow: options.serviceNow(),
          events,
          ...(nextPage ? { nextPage } : {}),
          ...extra,
        }),
      ),
      status,
    );
  };

  app.get("/dashboard/webhooks", (c) => webhooksPage(c));

  app.post("/dashboard/webhooks/rotate-secret", async (c) => {
    const viewer = view(c);
    const overlapValue = await formField(c, "overlap");
    const overlap = OVERLAP_CHOICES.find((choice) => choice.value === overlapValue);
    if (!overlap) return webhooksPage(c, { problem: "Choose an overlap from the list." }, 400);
    const secret = await admin.rotateWebhookSecret(viewer.accountId, overlap.ms);
    options.logger.info({ accountId: viewer.accountId }, "dashboard rotated the webhook signing secret");
    return webhooksPage(c, { newSecret: secret, overlapMs: overlap.ms });
  });

  app.post("/dashboard/webhooks/test", async (c) => {
    const viewer = view(c);
    const url = (await formField(c, "url"))?.trim() ?? "";
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:"))
      return webhooksPage(c, { problem: "The test event needs an http(s) URL." }, 400);
    const now = options.serviceNow();
    const secrets = (await options.store.transaction((tx) => tx.listWebhookSecrets(viewer.accountId)))
      .filter((s) => s.expiresAt === null || s.expiresAt > now)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((s) => s.secret);
    // A completed task's payload, valid for receivers that parse it (the SDK's verifyWebhook
    // does): the all-zero task id and its video URL, which no real task ever has.
    const body = JSON.stringify({
      success: true,
      message: "Test event from the genvideo dashboard",
      task_id: TEST_EVENT_TASK_ID,
      video_url: new URL(`/videos/${TEST_EVENT_TASK_ID}.mp4`, options.publicUrl).href,
    });
    const id = `msg_test_${crypto.randomUUID().replaceAll("-", "")}`;
    const headers = await signWebhook(id, Math.floor(wallNow() / 1000), body, secrets);
    const startedAt = options.serviceNow();
    // The sender applies the callback rules (https and public targets unless insecure callbacks are allowed).
    const outcome = await options.sender.send(
      { url: parsed.href, headers: { ...headers }, body },
      AbortSignal.timeout(TEST_EVENT_TIMEOUT_MS),
    );
    // Kept for the delivery log, marked as a test, like a task's event with its one attempt.
    await queries.insertTestEvent({
      id,
      accountId: viewer.accountId,
      url: parsed.href,
      payload: body,
      createdAt: startedAt,
      durationMs: outcome.durationMs,
      statusCode: outcome.statusCode,
      error: outcome.ok ? null : outcome.error,
      responseExcerpt: outcome.responseExcerpt ?? null,
    });
    options.logger.info({ accountId: viewer.accountId, eventId: id }, "dashboard sent a test event");
    return webhooksPage(c, {
      testOutcome: {
        url: parsed.href,
        ok: outcome.ok,
        statusCode: outcome.statusCode,
        durationMs: outcome.durationMs,
        ...(outcome.ok ? {} : { error: outcome.error }),
      },
    });
  });

  // ---- credits ----

  app.get("/dashboard/credits", async (c) => {
    const viewer = view(c);
    const entries = await queries.listLedger(
      viewer.accountId,
      LIST_PAGE_SIZE,
      decodeSince(c.req.query("after")),
    );
    const last = entries.at(-1);
    const nextPage =
      entries.length === LIST_PAGE_SIZE && last
        ? `/dashboard/credits?after=${encodeCursor(last)}`
        : undefined;
    return render(c, page(viewer, "credits", "Credits", creditsPageBody(viewer.credits, entries, nextPage)));
  });

  app.notFound((c) => c.text("Not found.", 404));
  app.onError((error, c) => {
    options.logger.error({ err: error, path: c.req.path }, "dashboard error");
    return c.text("Something went wrong; the server log has the details.", 500);
  });

  async function ownTask(id: string, accountId: string) {
    if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const task = await options.store.transaction((tx) => tx.getTask(id));
    // Another account's task is exactly as absent as an unknown one.
    return task && task.accountId === accountId ? task : undefined;
  }

  function notFound(c: Context<DashboardEnv>, viewer: Viewer) {
    return render(
      c,
      page(viewer, "tasks", "Not found", html`<p>There is nothing here for this account.</p>`),
      404,
    );
  }

  return { app, close: () => closing.abort() };
}

function decodeSince(text: string | undefined) {
  return text === "0_" ? { createdAt: 0, id: "" } : decodeCursor(text);
}

async function formField(c: Context, name: string): Promise<string | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data"))
    return undefined;
  const body = await c.req.parseBody();
  const value = body[name];
  return typeof value === "string" ? value : undefined;
}

function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
