/** What every part of the dashboard shares: its Hono environment, its services, and small request helpers. */
import type { Engine, Store, VideoStorage } from "@genvideo/engine";
import type { Context } from "hono";
import { html } from "hono/html";
import type { ClientAddressOf } from "../http/client-address.js";
import type { Logger } from "../logging/logger.js";
import type { DashboardQueries } from "../store/dashboard-queries.js";
import { type Html, page, type Section, type Viewer } from "./layout.js";
import type { ReceiverChecker } from "./receiver-check.js";
import type { TestEventSender } from "./test-event-sender.js";

export interface DashboardEnv {
  Variables: { viewer: Viewer; sessionHash: string; mediaOrigin?: string };
}

export type DashboardContext = Context<DashboardEnv>;

/** What the route modules use, built once by createDashboard. */
export interface DashboardServices {
  queries: DashboardQueries;
  store: Store;
  admin: Engine["admin"];
  videoStorage: VideoStorage;
  testEvents: TestEventSender;
  /** "Check this endpoint": the receiver check under the callback URL rules. */
  receiverCheck: ReceiverChecker;
  publicUrl: string;
  /** Service time (task times, key expiries). */
  serviceNow: () => number;
  /** Real time (sign-in links, sessions, form nonces). */
  wallNow: () => number;
  logger: Logger;
  /** Who a request comes from, behind trusted proxies too (the sign-in limit counts per client). */
  clientAddress: ClientAddressOf;
  /** GENVIDEO_TIME_SCALE: service ms per real ms. */
  timeScale: number;
  /** How often a live task list polls the database (real ms). */
  pollIntervalMs: number;
  /** Aborted when the server shuts down: live streams end. */
  closing: AbortSignal;
  /** The session cookie: its name, and whether it is Secure (https public URL). */
  cookie: { name: string; secure: boolean };
  /** How to run the CLI where the server runs (`pnpm genvideo-server`), for the hints pages print. */
  cliCommand: string;
}

export type PageStatus = 200 | 400 | 403 | 404 | 429;

export function render(c: Context, body: Html, status: PageStatus = 200) {
  return c.html(body, status);
}

/** The signed-in viewer (the session middleware set it). */
export function viewerOf(c: DashboardContext): Viewer {
  return c.get("viewer");
}

const SECTION_LISTS: Record<Section, { href: string; label: string }> = {
  tasks: { href: "/dashboard/tasks", label: "All tasks" },
  keys: { href: "/dashboard/keys", label: "All API keys" },
  webhooks: { href: "/dashboard/webhooks", label: "Webhooks" },
  credits: { href: "/dashboard/credits", label: "Credits" },
};

/** The section a dashboard path is in (`/dashboard/keys/…` is keys); tasks for any other. */
export function sectionOfPath(path: string): Section {
  const segment = path.split("/")[2];
  return segment !== undefined && Object.hasOwn(SECTION_LISTS, segment) ? (segment as Section) : "tasks";
}

/** The page for a thing that is not there, or is another account's: the same answer, and the way back. */
export function notFoundPage(c: DashboardContext, section: Section = sectionOfPath(c.req.path)) {
  const back = SECTION_LISTS[section];
  return render(
    c,
    page(
      viewerOf(c),
      section,
      "Not found",
      html`<p>There is nothing here for this account.</p>
<p><a href="${back.href}">← ${back.label}</a></p>`,
    ),
    404,
  );
}

/** A field of a posted form (url-encoded or multipart); undefined for any other body. */
export async function formField(c: Context, name: string): Promise<string | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data"))
    return undefined;
  const body = await c.req.parseBody();
  const value = body[name];
  return typeof value === "string" ? value : undefined;
}

/** The choice a form's `name` field picked from `choices` (by value); undefined for anything else. */
export async function formChoice<T extends { value: string }>(
  c: Context,
  name: string,
  choices: readonly T[],
): Promise<T | undefined> {
  const value = await formField(c, name);
  return choices.find((choice) => choice.value === value);
}
