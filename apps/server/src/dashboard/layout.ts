/** The page shell every dashboard page shares: head, navigation, account menu. */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { humanTime } from "./format.js";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export type Section = "tasks" | "keys" | "webhooks" | "credits";

export interface Viewer {
  accountId: string;
  name: string;
  credits: number;
  csrfToken: string;
  /** The service clock as the page was made: GENVIDEO_TIME_SCALE and the service time now. */
  clock: { scale: number; serviceNow: number; wallNow: number };
}

const SECTIONS: readonly { id: Section; label: string; href: string }[] = [
  { id: "tasks", label: "Tasks", href: "/dashboard/tasks" },
  { id: "keys", label: "API keys", href: "/dashboard/keys" },
  { id: "webhooks", label: "Webhooks", href: "/dashboard/webhooks" },
  { id: "credits", label: "Credits", href: "/dashboard/credits" },
];

function head(title: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · genvideo dashboard</title>
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/app.css">
<script src="/dashboard/assets/app.js" defer></script>
</head>`;
}

/** The hidden CSRF field every form that changes something carries. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrfToken}">`;
}

export function page(viewer: Viewer, section: Section, title: string, body: Html): Html {
  return html`${head(title)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <span class="brand">genvideo</span>
  <nav aria-label="Dashboard">
    <ul>
      ${SECTIONS.map(
        (s) =>
          html`<li><a href="${s.href}"${s.id === section ? html` aria-current="page"` : ""}>${s.label}</a></li>`,
      )}
    </ul>
  </nav>
  <div class="account">
    <span>Account <strong>${viewer.name}</strong> · <span id="credits" data-credits>${viewer.credits}</span> credits</span>
    <form class="inline" method="post" action="/dashboard/sign-out">${csrfField(viewer)}<button class="secondary" type="submit">Sign out</button></form>
    <form class="inline" method="post" action="/dashboard/sign-out-everywhere">${csrfField(viewer)}<button class="secondary" type="submit">Sign out everywhere</button></form>
  </div>
</header>
${clockNote(viewer.clock)}
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

/**
 * Under GENVIDEO_TIME_SCALE the service clock runs ahead of the wall clock:
 * every page says so, with both clocks' time now, so that no time surprises.
 */
function clockNote(clock: Viewer["clock"]): Html | string {
  if (clock.scale === 1) return "";
  return html`<p class="clock-note" role="note">Service time runs <strong>${clock.scale}×</strong> as fast as real time (<code>GENVIDEO_TIME_SCALE=${clock.scale}</code>). Every time on these pages is service time: now ${humanTime(clock.serviceNow)} (wall clock ${humanTime(clock.wallNow)}).</p>`;
}

/** A page for someone not signed in (sign-in, refusals). */
export function publicPage(title: string, body: Html): Html {
  return html`${head(title)}
<body>
<header class="top"><span class="brand">genvideo</span></header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

export function stateBadge(state: string, label: string = state): Html {
  return html`<span class="badge state-${state}">${label}</span>`;
}

/** A value shown once, with a copy button (the script copies from the input). */
export function shownOnce(id: string, label: string, value: string, note: string): Html {
  return html`<div class="notice" role="status">
  <p><strong>${label}</strong> ${note}</p>
  <div class="secret">
    <label for="${id}" class="muted">${label}</label>
    <input id="${id}" readonly value="${value}" autocomplete="off" spellcheck="false">
    <button type="button" data-copy="${id}">Copy</button>
  </div>
</div>`;
}
