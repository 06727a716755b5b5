/** The credits page: balance and the ledger (grants, charges, refunds), newest first. */
import type { LedgerEntry } from "@genvideo/engine";
import { html } from "hono/html";
import { humanTime, signedAmount } from "./format.js";
import type { Html } from "./layout.js";

export function creditsPageBody(balance: number, entries: LedgerEntry[], nextPage: string | undefined): Html {
  return html`<div class="cards"><div class="card"><div class="muted">Balance</div><div class="value">${balance}</div><div class="muted">credits</div></div></div>
<h2>Ledger</h2>
${
  entries.length === 0
    ? html`<p class="muted">No entries yet.</p>`
    : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">Time</th><th scope="col">Entry</th><th scope="col">Credits</th><th scope="col">Task</th></tr></thead><tbody>${entries.map(
        (entry) =>
          html`<tr><td>${humanTime(entry.createdAt)}</td><td>${entry.reason}</td><td>${signedAmount(entry.delta)}</td><td>${
            entry.taskId
              ? html`<a class="mono" href="/dashboard/tasks/${entry.taskId}">${entry.taskId}</a>`
              : ""
          }</td></tr>`,
      )}</tbody></table></div>`
}
${nextPage ? html`<nav class="pager" aria-label="Pages"><a href="${nextPage}" rel="next">Older entries</a></nav>` : ""}`;
}
