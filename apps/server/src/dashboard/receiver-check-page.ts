/** "Check this endpoint": its form on the webhooks page, and the page with the graded report. */
import type { WebhookCheckGrade, WebhookReceiverReport } from "@genvideo/sdk/receiver-check";
import { html } from "hono/html";
import { humanTime } from "./format.js";
import { csrfField, type Html, stateBadge, type Viewer } from "./layout.js";
import type { ReceiverCheckOutcome } from "./receiver-check.js";

/** Each grade in the colours the dashboard already gives states. */
const GRADE_STATES: Record<WebhookCheckGrade, string> = {
  pass: "completed",
  warn: "pending",
  fail: "failed",
  skip: "queued",
};

/** What the check form was last given, kept in its fields. */
export interface ReceiverCheckFields {
  url?: string;
  taskId?: string;
}

export function receiverCheckForm(viewer: Viewer, fields: ReceiverCheckFields = {}): Html {
  return html`<h2 id="check">Check a receiver</h2>
<p>Sends a battery of deliveries to the URL (valid ones, a retry, forgeries, stale timestamps), signed as the service signs now, and grades each answer, under the same rules as task callbacks. Each request carries a <code>genvideo-webhook-check</code> header.</p>
<form class="stack" method="post" action="/dashboard/webhooks/check">
${csrfField(viewer)}
<label>Endpoint to check <input type="url" name="url" required placeholder="https://example.com/webhooks/genvideo" value="${fields.url ?? ""}"></label>
<label>Task id <span class="muted">(optional: one of your tasks, for a receiver that refuses task ids it does not know)</span> <input name="task" pattern="[0-9a-fA-F-]{36}" placeholder="00000000-0000-4000-8000-000000000000" value="${fields.taskId ?? ""}" spellcheck="false" autocomplete="off"></label>
<div><button type="submit">Check this endpoint</button></div>
</form>`;
}

/** During a rotation: which secret the receiver is on, and until when the older one signs. */
function rotationNotice(report: WebhookReceiverReport, overlapEndsAt: number | undefined): Html | string {
  if (overlapEndsAt === undefined) return "";
  const until = humanTime(overlapEndsAt);
  if (report.receiverSecret === "older")
    return html`<p class="notice error" role="note">A secret rotation is under way, and this receiver is on the older secret: it verifies deliveries until ${until}, and none after. Give it the current secret before then.</p>`;
  if (report.receiverSecret === "newest")
    return html`<p class="notice" role="note">A secret rotation is under way (the older secret signs until ${until}); this receiver is on the current secret and keeps verifying when the overlap ends.</p>`;
  return html`<p class="notice" role="note">A secret rotation is under way: the older secret signs until ${until}.</p>`;
}

/** What the check page shows after a check: what was asked, and the outcome. */
export interface CheckedReceiver {
  fields: ReceiverCheckFields;
  outcome: ReceiverCheckOutcome;
}

export function receiverCheckPageBody(
  viewer: Viewer,
  checked: CheckedReceiver | undefined,
  cliCommand = "genvideo-server",
): Html {
  if (!checked) return receiverCheckForm(viewer);
  const { fields, outcome } = checked;
  const url = fields.url ?? "";
  if ("refused" in outcome) {
    return html`<p class="notice error" role="alert">Not checked: ${outcome.refused}</p>
<p class="notice" role="note">The check follows the rules of task callbacks: <code>https:</code> to a public address. For local development, start the server with <code>GENVIDEO_ALLOW_INSECURE_CALLBACKS=1</code>, or run <code>${cliCommand} webhooks check ${URL.canParse(url) ? url : "<url>"}${fields.taskId ? ` --task ${fields.taskId}` : ""}</code> on your machine.</p>
${receiverCheckForm(viewer, fields)}`;
  }
  const { report } = outcome;
  const { pass, warn, fail, skip } = report.counts;
  const signedWith =
    report.secrets > 1
      ? `signed as the service signs now, with each of the account's ${report.secrets} live secrets`
      : "signed with the account's current secret";
  return html`<p class="notice${report.ok ? "" : " error"}" role="status">${
    report.ok ? "The receiver passes" : "The receiver fails"
  } the check: ${pass} passed, ${warn} warned, ${fail} failed${skip ? `, ${skip} not sent` : ""}.</p>
${rotationNotice(report, outcome.overlapEndsAt)}
<p>Checked <span class="mono">${report.target}</span>, ${signedWith}, every payload with task id <span class="mono">${report.taskId}</span>.</p>
${report.notes.map((note) => html`<p class="muted">${note}</p>`)}
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Result</th><th scope="col">Case</th><th scope="col">Expected</th><th scope="col">What happened</th><th scope="col">Why it matters</th></tr></thead><tbody>
${report.cases.map(
  (entry) =>
    html`<tr data-case="${entry.id}"><td>${stateBadge(GRADE_STATES[entry.grade], entry.grade)}</td><td>${entry.title}</td><td>${entry.expected}</td><td>${entry.detail}</td><td>${entry.why} <a href="${entry.docs}">Read more<span class="skip"> about ${entry.title}</span></a></td></tr>`,
)}
</tbody></table></div>
${receiverCheckForm(viewer, fields)}`;
}
