/** The task list (filters, keyset pages, live rows) and a task's own page. */
import type { LedgerEntry, TaskRecord, TaskState, WebhookEventWithAttempts } from "@genvideo/engine";
import { FAILURE_CATALOG, FAILURE_CODES, type FailureCode, TASK_STATUSES } from "@genvideo/schema";
import { html } from "hono/html";
import { isoTime } from "../clock/time-text.js";
import type { Cursor, TaskFilter, TaskSummary } from "../store/dashboard-queries.js";
import { countOf, humanTime, signedAmount } from "./format.js";
import { csrfField, type Html, stateBadge, type Viewer } from "./layout.js";
import { decodeCursor, nextPageHref } from "./pagination.js";
import { webhookEventsTable } from "./webhooks-pages.js";

/** The list's query string, parsed; `problem` says what was refused (the filter then is ignored). */
export interface TaskListQuery {
  filter: TaskFilter;
  cursor?: Cursor;
  values: { state: string; code: string; from: string; to: string; q: string };
  problem?: string;
}

const ID_SEARCH = /^[0-9a-f-]{4,36}$/;
const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

export function parseTaskListQuery(query: (name: string) => string | undefined): TaskListQuery {
  const values = {
    state: query("state") ?? "",
    code: query("code") ?? "",
    from: query("from") ?? "",
    to: query("to") ?? "",
    q: (query("q") ?? "").trim().toLowerCase(),
  };
  const filter: TaskFilter = {};
  const problems: string[] = [];
  if (values.state) {
    if ((TASK_STATUSES as readonly string[]).includes(values.state))
      filter.states = [values.state as TaskState];
    else problems.push(`unknown state "${values.state}"`);
  }
  if (values.code) {
    if ((FAILURE_CODES as readonly string[]).includes(values.code)) filter.failureCode = values.code;
    else problems.push(`unknown failure code "${values.code}"`);
  }
  for (const bound of ["from", "to"] as const) {
    const text = values[bound];
    if (!text) continue;
    const ms = DATETIME_LOCAL.test(text) ? Date.parse(`${text}Z`) : Number.NaN;
    if (Number.isNaN(ms)) problems.push(`"${bound}" is not a date and time`);
    else filter[bound] = ms;
  }
  if (values.q) {
    if (ID_SEARCH.test(values.q)) filter.idPrefix = values.q;
    else problems.push("search takes a task id or its first characters (at least 4 of 0-9, a-f, -)");
  }
  const result: TaskListQuery = { filter, values };
  const cursor = decodeCursor(query("after"));
  if (cursor) result.cursor = cursor;
  if (problems.length > 0) {
    result.problem = problems.join("; ");
    result.filter = {};
  }
  return result;
}

/** The query string of the list with these values (filters kept, cursor replaced). */
export function listQueryString(values: TaskListQuery["values"], extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...extra })) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

function progressCell(task: TaskSummary): Html {
  if (task.state === "processing")
    return html`<progress max="100" value="${task.progress}" aria-label="Progress">${task.progress}%</progress> ${task.progress}%`;
  if (task.state === "completed") return html`100%`;
  return html`<span class="muted">—</span>`;
}

export function taskRow(task: TaskSummary): Html {
  const label = task.state === "failed" && task.failureCode ? `failed: ${task.failureCode}` : task.state;
  return html`<tr id="task-${task.id}" data-state="${task.state}">
<td><a class="mono" href="/dashboard/tasks/${task.id}">${task.id}</a></td>
<td class="prompt">${task.promptPreview ?? html`<span class="muted">(request with images)</span>`}</td>
<td>${stateBadge(task.state, label)}</td>
<td>${progressCell(task)}</td>
<td class="optional">${task.modelType}</td>
<td class="optional">${task.cost}${task.refundedAt !== null ? " (refunded)" : ""}</td>
<td><time datetime="${isoTime(task.createdAt)}">${humanTime(task.createdAt)}</time></td>
</tr>`;
}

function options(all: readonly string[], selected: string, anyLabel: string): Html {
  return html`<option value="">${anyLabel}</option>${all.map(
    (value) => html`<option value="${value}"${value === selected ? html` selected` : ""}>${value}</option>`,
  )}`;
}

export function taskListBody(query: TaskListQuery, tasks: TaskSummary[], liveUrl: string): Html {
  const { values } = query;
  const next = nextPageHref(tasks, (after) => `/dashboard/tasks${listQueryString(values, { after })}`);
  return html`<form class="filters" method="get" action="/dashboard/tasks" role="search" aria-label="Filter tasks">
  <label>State <select name="state">${options(TASK_STATUSES, values.state, "Any")}</select></label>
  <label>Failure code <select name="code">${options(FAILURE_CODES, values.code, "Any")}</select></label>
  <label>Created from (UTC) <input type="datetime-local" name="from" value="${values.from}"></label>
  <label>Created before (UTC) <input type="datetime-local" name="to" value="${values.to}"></label>
  <label>Task id <input type="search" name="q" value="${values.q}" placeholder="id or its start" spellcheck="false"></label>
  <div class="actions"><button type="submit">Apply</button> <a class="button secondary" href="/dashboard/tasks">Clear</a></div>
</form>
${query.problem ? html`<p class="notice error" role="alert">Filter not applied: ${query.problem}.</p>` : ""}
<p id="live-status" class="muted" aria-live="polite">${query.cursor ? "Older tasks: this page updates the rows it shows." : "New tasks appear here as they are created."}</p>
<div class="table-wrap" tabindex="0">
<table>
<caption class="skip">Tasks, newest first</caption>
<thead><tr><th scope="col">Task</th><th scope="col">Prompt</th><th scope="col">State</th><th scope="col">Progress</th><th scope="col" class="optional">Model</th><th scope="col" class="optional">Credits</th><th scope="col">Created (service time)</th></tr></thead>
<tbody data-live="${liveUrl}">
${tasks.map(taskRow)}
</tbody>
</table>
</div>
${tasks.length === 0 ? html`<p id="no-tasks" class="muted">No tasks${query.problem || Object.keys(query.filter).length === 0 ? "" : " match these filters"} yet.</p>` : ""}
<nav class="pager" aria-label="Pages">
${query.cursor ? html`<a href="/dashboard/tasks${listQueryString(values)}">Newest</a>` : ""}
${next ? html`<a href="${next}" rel="next">Older tasks</a>` : ""}
</nav>`;
}

// ---- one task ----

const IMAGE_FIELDS = ["start_frame", "end_frame"] as const;

/** The images of a request as (name, data URL) pairs, in the order they were sent. */
export function requestImages(request: Record<string, unknown>): { name: string; dataUrl: string }[] {
  const images: { name: string; dataUrl: string }[] = [];
  for (const field of IMAGE_FIELDS) {
    const value = request[field];
    if (typeof value === "string") images.push({ name: field, dataUrl: value });
  }
  const references = request.reference_images;
  if (Array.isArray(references))
    references.forEach((value, index) => {
      if (typeof value === "string") images.push({ name: `reference_images.${index}`, dataUrl: value });
    });
  return images;
}

/** The request as JSON with each image replaced by a short note (no base64 walls). */
function requestWithoutImages(request: Record<string, unknown>): string {
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request)) {
    if (typeof value === "string" && value.startsWith("data:")) shown[name] = `<image: ${name}>`;
    else if (Array.isArray(value) && name === "reference_images")
      shown[name] = value.map((_, index) => `<image: reference_images.${index}>`);
    else shown[name] = value;
  }
  return JSON.stringify(shown, null, 2);
}

export interface TaskPageData {
  task: TaskRecord;
  ledger: LedgerEntry[];
  events: WebhookEventWithAttempts[];
  videoUrl?: string;
  statusUrl: string;
  serviceNow: number;
}

/** One per failure code of the catalog: the compiler refuses a code without its line, or a line without its code. */
const FAILURE_MEANINGS: Record<FailureCode, string> = {
  UNSAFE_CONTENT: "The prompt or an image was refused as unsafe content.",
  TIMEOUT: "The task did not finish within its 10 minutes (service time) and timed out.",
  GENERATION_FAILED: "Generation failed on the service's side.",
};

/** What a failure code means, and what happened to the task's credits, in one line. */
export function failureExplanation(task: TaskRecord, ledger: readonly LedgerEntry[]): string {
  const code = task.failureCode;
  const meaning = code ? FAILURE_MEANINGS[code] : "The task failed.";
  const cost = `The ${countOf(task.cost, "credit")} it cost ${task.cost === 1 ? "was" : "were"}`;
  if (code && !FAILURE_CATALOG[code].refunded) return `${meaning} ${cost} kept: ${code} is not refunded.`;
  const refund = ledger.find((entry) => entry.reason === "refund");
  return refund
    ? `${meaning} ${cost} refunded: ledger entry refund ${signedAmount(refund.delta)} at ${humanTime(refund.createdAt)}.`
    : `${meaning} ${cost} not refunded yet.`;
}

function timeline(task: TaskRecord, ledger: readonly LedgerEntry[]): Html {
  const steps: Html[] = [html`<li><strong>Queued</strong> · ${humanTime(task.createdAt)}</li>`];
  if (task.startedAt !== null) {
    const progress = task.state === "processing" ? html` · ${task.progress}% so far` : "";
    steps.push(html`<li><strong>Processing</strong> · ${humanTime(task.startedAt)}${progress}</li>`);
  }
  if (task.state === "completed")
    steps.push(html`<li>${stateBadge("completed")} · ${humanTime(task.completedAt)}</li>`);
  else if (task.state === "failed")
    steps.push(
      html`<li>${stateBadge("failed", `failed: ${task.failureCode ?? "unknown"}`)} · ${humanTime(task.completedAt)}
<p class="explain" data-failure-explained>${failureExplanation(task, ledger)}</p></li>`,
    );
  else
    steps.push(
      html`<li class="muted">Deadline · ${humanTime(task.deadlineAt)} (times out if not finished)</li>`,
    );
  return html`<ol class="timeline">${steps}</ol>`;
}

export function taskPageBody(viewer: Viewer, data: TaskPageData): Html {
  const { task } = data;
  const request = task.request as unknown as Record<string, unknown>;
  const images = requestImages(request);
  const curl = `curl -sS -H "Authorization: Bearer $GENVIDEO_API_KEY" ${data.statusUrl}`;
  return html`<p><a href="/dashboard/tasks">← All tasks</a></p>
<p class="mono">${task.id}</p>
<h2>Timeline</h2>
${timeline(task, data.ledger)}
${
  data.videoUrl
    ? html`<h2>Video</h2><video controls preload="metadata" src="${data.videoUrl}" aria-label="Generated video"></video>`
    : ""
}
<h2>Request</h2>
<pre>${requestWithoutImages(request)}</pre>
${
  images.length > 0
    ? html`<div class="thumbs">${images.map(
        (image, index) =>
          html`<figure><img src="/dashboard/tasks/${task.id}/images/${index}" alt="${image.name}" loading="lazy"><figcaption class="muted">${image.name}</figcaption></figure>`,
      )}</div>`
    : ""
}
<h2>Credits</h2>
${
  data.ledger.length === 0
    ? html`<p class="muted">No charge recorded.</p>`
    : html`<table><thead><tr><th scope="col">Time</th><th scope="col">Entry</th><th scope="col">Credits</th></tr></thead><tbody>${data.ledger.map(
        (entry) =>
          html`<tr><td>${humanTime(entry.createdAt)}</td><td>${entry.reason}</td><td>${signedAmount(entry.delta)}</td></tr>`,
      )}</tbody></table>`
}
<h2>Webhook attempts</h2>
${
  task.callbackUrl === null
    ? html`<p class="muted">This task has no callback_url: no webhook.</p>`
    : html`${webhookEventsTable(data.events)}
${
  data.events.length > 0
    ? html`<form method="post" action="/dashboard/tasks/${task.id}/redeliver">${csrfField(viewer)}<button type="submit">Redeliver the webhook</button></form>`
    : html`<p class="muted">The webhook is sent when the task ends.</p>`
}`
}
<h2>Status call</h2>
<pre id="status-curl">${curl}</pre>
<button type="button" data-copy="status-curl">Copy as curl</button>`;
}
