/** "Check this endpoint": its form on the webhooks page, and the page with the graded report. */
import type { WebhookCheckGrade } from "@genvideo/sdk/receiver-check";
import { html } from "hono/html";
import { csrfField, type Html, stateBadge, type Viewer } from "./layout.js";
import type { ReceiverCheckOutcome } from "./receiver-check.js";

/** Each grade in the colours the dashboard already gives states. */
const GRADE_STATES: Record<WebhookCheckGrade, string> = {
  pass: "completed",
  warn: "pending",
  fail: "failed",
  skip: "queued",
};

export function receiverCheckForm(viewer: Viewer, url = ""): Html {
  return html`<h2>Check a receiver</h2>
<p>Sends a battery of signed deliveries to the URL (valid ones, a retry, forgeries, stale timestamps) and grades each answer, under the same rules as task callbacks. Each request carries a <code>genvideo-webhook-check</code> header.</p>
<form class="stack" method="post" action="/dashboard/webhooks/check">
${csrfField(viewer)}
<label>Endpoint to check <input type="url" name="url" required placeholder="https://example.com/webhooks/genvideo" value="${url}"></label>
<div><button type="submit">Check this endpoint</button></div>
</form>`;
}

export function receiverCheckPageBody(
  viewer: Viewer,
  url: string,
  outcome: ReceiverCheckOutcome,
  cliCommand = "genvideo-server",
): Html {
  if ("refused" in outcome) {
    return html`<p class="notice error" role="alert">Not checked: ${outcome.refused}</p>
<p class="notice" role="note">The check follows the rules of task callbacks: <code>https:</code> to a public address. For local development, start the server with <code>GENVIDEO_ALLOW_INSECURE_CALLBACKS=1</code>, or run <code>${cliCommand} webhooks check ${URL.canParse(url) ? url : "<url>"}</code> on your machine.</p>
${receiverCheckForm(viewer, url)}`;
  }
  const { report } = outcome;
  const { pass, warn, fail, skip } = report.counts;
  return html`<p class="notice${report.ok ? "" : " error"}" role="status">${
    report.ok ? "The receiver passes" : "The receiver fails"
  } the check: ${pass} passed, ${warn} warned, ${fail} failed${skip ? `, ${skip} not sent` : ""}.</p>
<p>Checked <span class="mono">${report.target}</span>, signed with the account's current secret, every payload with task id <span class="mono">${report.taskId}</span>.</p>
${report.notes.map((note) => html`<p class="muted">${note}</p>`)}
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Result</th><th scope="col">Case</th><th scope="col">Expected</th><th scope="col">What happened</th><th scope="col">Why it matters</th></tr></thead><tbody>
${report.cases.map(
  (entry) =>
    html`<tr data-case="${entry.id}"><td>${stateBadge(GRADE_STATES[entry.grade], entry.grade)}</td><td>${entry.title}</td><td>${entry.expected}</td><td>${entry.detail}</td><td>${entry.why} <a href="${entry.docs}">Read more<span class="skip"> about ${entry.title}</span></a></td></tr>`,
)}
</tbody></table></div>
${receiverCheckForm(viewer, url)}`;
}
