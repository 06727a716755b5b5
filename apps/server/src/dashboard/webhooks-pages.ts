/** The webhooks page: signing secrets and their rotation, a test event, the delivery log. */
import type { WebhookEventWithAttempts } from "@genvideo/engine";
import { liveWebhookSecrets } from "@genvideo/engine/rules";
import { html } from "hono/html";
import type { TestEventRecord } from "../store/dashboard-queries.js";
import { countOf, humanDuration, humanTime, OVERLAP_CHOICES } from "./format.js";
import { csrfField, type Html, shownOnce, stateBadge, type Viewer } from "./layout.js";
import { receiverCheckForm } from "./receiver-check-page.js";

export interface SecretTimes {
  id: string;
  createdAt: number;
  expiresAt: number | null;
}

export interface TestEventOutcome {
  url: string;
  ok: boolean;
  statusCode: number | null;
  error?: string;
  durationMs: number;
}

/** An event of the delivery log: a task's, or (`test`) a test event sent from this page. */
export type LoggedEvent = WebhookEventWithAttempts & { test?: boolean };

/** A test event as the delivery log shows it: its one attempt, no task, no next retry. */
export function loggedTestEvent(event: TestEventRecord): LoggedEvent {
  const ok = event.statusCode !== null && event.statusCode >= 200 && event.statusCode < 300 && !event.error;
  return {
    id: event.id,
    taskId: "",
    accountId: event.accountId,
    url: event.url,
    payload: event.payload,
    state: ok ? "delivered" : "failed",
    attemptCount: 1,
    nextAttemptAt: null,
    createdAt: event.createdAt,
    leaseOwner: null,
    leaseExpiresAt: null,
    test: true,
    attempts: [
      {
        eventId: event.id,
        attempt: 1,
        startedAt: event.createdAt,
        durationMs: event.durationMs,
        statusCode: event.statusCode,
        error: event.error,
        responseExcerpt: event.responseExcerpt,
        requestHeaders: event.requestHeaders,
      },
    ],
  };
}

function attemptOutcome(attempt: WebhookEventWithAttempts["attempts"][number]): string {
  const status = `HTTP ${attempt.statusCode}`;
  // A refusal's error is its status ("HTTP 500"): said once, not "HTTP 500: HTTP 500".
  if (attempt.statusCode !== null && (attempt.error === null || attempt.error === status)) return status;
  if (attempt.statusCode !== null) return `${status}: ${attempt.error}`;
  return attempt.error ?? "no response";
}

/**
 * How many attempts the table below lists, and after a redelivery how many of them are of the new
 * round: the event's own count restarts at a redelivery (it bounds the retries), its attempts stay.
 */
function attemptsSummary(event: LoggedEvent): string {
  const total = countOf(event.attempts.length, "attempt");
  if (event.attempts.length <= event.attemptCount) return total;
  return `${total} · redelivered: ${countOf(event.attemptCount, "attempt")} since`;
}

/** The start of the receiver's answer, escaped like every value, folded away until asked for. */
function responseExcerpt(attempt: WebhookEventWithAttempts["attempts"][number]): Html | string {
  if (!attempt.responseExcerpt) return "";
  return html`<details><summary>Excerpt</summary><pre class="excerpt" tabindex="0">${attempt.responseExcerpt}</pre></details>`;
}

/**
 * What an attempt sent, as Svix's and Stripe's event views show it: the
 * signature headers and the body (the event's payload, the bytes signed),
 * folded away until asked for.
 */
function sentRequest(attempt: WebhookEventWithAttempts["attempts"][number], payload: string): Html | string {
  if (!attempt.requestHeaders) return html`<span class="muted">nothing sent</span>`;
  const headers = Object.entries(attempt.requestHeaders)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
  return html`<details data-request><summary>Request</summary><pre class="excerpt" tabindex="0">${`${headers}\n\n${payload}`}</pre></details>`;
}

/** What the delivery log says an event is about: its task, or that it was a test. */
function eventSubject(event: LoggedEvent): Html {
  if (event.test) return html`· ${stateBadge("test", "test event")}`;
  return html`· task <a class="mono" href="/dashboard/tasks/${event.taskId}">${event.taskId}</a>`;
}

/** The delivery log's button of an event: redeliver a task's event, send a test event again. */
function eventAction(event: LoggedEvent, viewer: Viewer): Html {
  if (event.test)
    return html`<form method="post" action="/dashboard/webhooks/test">${csrfField(viewer)}<input type="hidden" name="url" value="${event.url}"><button class="secondary" type="submit">Send again<span class="skip"> a test event to ${event.url}</span></button></form>`;
  return html`<form method="post" action="/dashboard/tasks/${event.taskId}/redeliver">${csrfField(viewer)}<input type="hidden" name="back" value="webhooks"><button class="secondary" type="submit">Redeliver<span class="skip"> ${event.id}</span></button></form>`;
}

/**
 * The events with their attempts. Given a viewer (the delivery log), each
 * event also says what it is about (its task, or a test) and has its button.
 */
export function webhookEventsTable(events: LoggedEvent[], viewer?: Viewer): Html {
  if (events.length === 0) return html`<p class="muted">No webhook deliveries yet.</p>`;
  return html`${events.map(
    (
      event,
    ) => html`<section class="card" aria-label="${event.test ? "Test event" : "Delivery"} ${event.id}"${event.test ? html` data-test-event` : ""}>
<p>${stateBadge(event.state)} <span class="mono">${event.id}</span> → <span class="mono">${event.url}</span>
${viewer ? eventSubject(event) : ""}</p>
<p class="muted">Created ${humanTime(event.createdAt)} · ${attemptsSummary(event)}${
      event.state === "pending" && event.nextAttemptAt !== null
        ? html` · next attempt ${humanTime(event.nextAttemptAt)}`
        : ""
    }</p>
${
  event.attempts.length === 0
    ? html`<p class="muted">No attempt yet.</p>`
    : attemptsTable(event, viewer === undefined)
}
${viewer ? eventAction(event, viewer) : ""}
</section>`,
  )}`;
}

/**
 * An event's attempts. In the delivery log they fold away under a line that says how many there
 * were, so that a page of events reads as a list; on a task's page they are open.
 */
function attemptsTable(event: LoggedEvent, open: boolean): Html {
  const table = html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Sent</th><th scope="col">Response</th></tr></thead><tbody>${event.attempts.map(
    (attempt) =>
      html`<tr><td>${attempt.attempt}</td><td>${humanTime(attempt.startedAt)}</td><td>${attemptOutcome(attempt)}</td><td>${attempt.durationMs} ms</td><td>${sentRequest(attempt, event.payload)}</td><td>${responseExcerpt(attempt)}</td></tr>`,
  )}</tbody></table></div>`;
  if (open) return table;
  return html`<details class="attempts"><summary>Attempts (${event.attempts.length})</summary>${table}</details>`;
}

export function overlapFieldset(legend: string): Html {
  return html`<fieldset class="choices"><legend>${legend}</legend>
${OVERLAP_CHOICES.map(
  (choice, index) =>
    html`<label><input type="radio" name="overlap" value="${choice.value}"${index === 2 ? html` checked` : ""}> ${choice.label}</label>`,
)}
</fieldset>`;
}

/** Said under a test event the callback rules refused: how to allow local receivers while developing. */
const insecureCallbacksHint = html`<p class="notice" role="note">Test events follow the rules of task callbacks: <code>https:</code> to a public address. For local development, start the server with <code>GENVIDEO_ALLOW_INSECURE_CALLBACKS=1</code> to allow <code>http:</code> and loopback or private receivers.</p>`;

export interface WebhooksPageData {
  secrets: SecretTimes[];
  serviceNow: number;
  events: LoggedEvent[];
  nextPage?: string;
  newSecret?: string;
  overlapMs?: number;
  /** The test event just sent (it heads the delivery log too). */
  testOutcome?: TestEventOutcome;
  /** The URL typed for a test event that was not sent: kept in the field. */
  testUrl?: string;
  problem?: string;
}

export function webhooksPageBody(viewer: Viewer, data: WebhooksPageData): Html {
  const live = liveWebhookSecrets(data.secrets, data.serviceNow);
  // A test event's problem is said at its form, which the redirect brings into view.
  const testProblem = data.testUrl !== undefined ? data.problem : undefined;
  return html`${data.problem && !testProblem ? html`<p class="notice error" role="alert">${data.problem}</p>` : ""}
${
  data.newSecret
    ? shownOnce(
        "new-secret",
        "New signing secret",
        data.newSecret,
        `Shown once: store it now. ${
          data.overlapMs
            ? `Webhooks carry signatures of the old secret too for ${humanDuration(data.overlapMs)}.`
            : "The old secret no longer signs."
        }`,
      )
    : ""
}
<h2>Signing secret</h2>
<p>Webhooks are signed per Standard Webhooks. During a rotation's overlap every webhook carries one signature per live secret in <code>webhook-signature</code>, so receivers on either secret verify it.</p>
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Secret</th><th scope="col">Created</th><th scope="col">Signs until</th></tr></thead><tbody>
${data.secrets.map(
  (secret) =>
    html`<tr><td class="mono">${secret.id.slice(0, 8)}</td><td>${humanTime(secret.createdAt)}</td><td>${
      secret.expiresAt === null
        ? stateBadge("active", "no end")
        : secret.expiresAt > data.serviceNow
          ? html`${stateBadge("expiring", "overlap")} ${humanTime(secret.expiresAt)}`
          : html`${stateBadge("expired", "ended")} ${humanTime(secret.expiresAt)}`
    }</td></tr>`,
)}
</tbody></table></div>
<p class="muted">${live.length === 1 ? "1 secret signs" : `${live.length} secrets sign`} webhooks now.</p>
<form class="stack" method="post" action="/dashboard/webhooks/rotate-secret">
${csrfField(viewer)}
${overlapFieldset("Keep the current secret signing for")}
<div><button type="submit">Rotate the signing secret</button></div>
</form>
${receiverCheckForm(viewer)}

<section id="test-event" aria-labelledby="test-event-heading">
<h2 id="test-event-heading">Send a test event</h2>
<p>A signed test event (<code>task_id</code> all zeros) goes to the URL once, under the same rules as task callbacks, and is kept in the delivery log, marked as a test. It is not retried.</p>
<form class="stack" method="post" action="/dashboard/webhooks/test">
${csrfField(viewer)}
<label>Receiver URL <input type="url" name="url" required placeholder="https://example.com/webhooks/genvideo" value="${data.testOutcome?.url ?? data.testUrl ?? ""}"></label>
<div><button type="submit">Send a signed test event</button></div>
</form>
${testProblem ? html`<p class="notice error" role="alert">${testProblem}</p>` : ""}
${
  data.testOutcome
    ? html`<p class="notice${data.testOutcome.ok ? "" : " error"}" role="status">Test event to <span class="mono">${data.testOutcome.url}</span>: ${
        data.testOutcome.statusCode !== null ? `HTTP ${data.testOutcome.statusCode}` : "no response"
      }${data.testOutcome.error ? ` (${data.testOutcome.error})` : ""} in ${data.testOutcome.durationMs} ms.</p>${
        /^refused (url: not https|address |host )/.test(data.testOutcome.error ?? "")
          ? insecureCallbacksHint
          : ""
      }`
    : ""
}
</section>

<h2>Delivery log</h2>
${webhookEventsTable(data.events, viewer)}
${data.nextPage ? html`<nav class="pager" aria-label="Pages"><a href="${data.nextPage}" rel="next">Older deliveries</a></nav>` : ""}`;
}
