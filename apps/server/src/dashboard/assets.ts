/**
 * The dashboard's stylesheet and its one script, served as static files
 * (`/dashboard/assets/…`) so the CSP can forbid inline script and style.
 * Kept as strings in the build: the server finds no asset folder at run time.
 * No framework and no bundler: the script only copies to the clipboard and
 * applies the task list's server-sent events.
 */

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1d21; --muted: #555c66; --line: #d8dce2;
  --panel: #f5f7fa; --accent: #1f5fbf; --accent-fg: #ffffff; --ok: #17663a; --bad: #a3231b; --warn: #7a5200;
  --focus: #1f5fbf; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171b; --fg: #e6e9ee; --muted: #a9b1bc; --line: #343a42; --panel: #1c2026;
    --accent: #7fb0ff; --accent-fg: #0b1220; --ok: #6fd49a; --bad: #ff8f86; --warn: #f2c15b; --focus: #7fb0ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.45; font-size: 15px; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible, pre:focus-visible {
  outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; } .skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; }
header.top { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; padding: 10px 20px;
  border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; margin-right: 8px; }
nav ul { display: flex; flex-wrap: wrap; gap: 4px 14px; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
header.top .account { margin-left: auto; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; color: var(--muted); }
main { padding: 16px 20px 40px; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: 8px 0 16px; } h2 { font-size: 1.15rem; margin: 24px 0 8px; }
table { border-collapse: collapse; width: 100%; font-size: 0.93rem; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.table-wrap { overflow-x: auto; }
/* Focusable, so a table wider than a phone scrolls with the keyboard too. */
.table-wrap:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: var(--panel); border: 1px solid var(--line); padding: 10px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
pre.excerpt { max-height: 12em; max-width: 40em; overflow-y: auto; margin: 4px 0 0; }
button, .button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-fg); cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); color: var(--bg); }
input, select { font: inherit; padding: 5px 8px; border: 1px solid var(--muted); border-radius: 6px; background: var(--bg); color: var(--fg); max-width: 100%; }
form.inline { display: inline; }
.filters { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: end; margin-bottom: 14px; }
.filters label, .stack > label { display: flex; flex-direction: column; gap: 2px; font-size: 0.9rem; color: var(--muted); }
/* A radio or checkbox sits before its words, on one line (not stacked like a text field's label). */
fieldset.choices label { display: flex; flex-direction: row; align-items: center; gap: 8px; padding: 2px 0; }
fieldset.choices input { margin: 0; }
.stack { display: flex; flex-direction: column; gap: 10px; max-width: 520px; }
/* A form's buttons and links stay together on one row, apart enough to tell them apart. */
.actions { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
fieldset { border: 1px solid var(--line); border-radius: 6px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 0.85em; border: 1px solid currentColor; }
.state-completed, .state-delivered, .state-active { color: var(--ok); }
.state-failed, .state-revoked, .state-expired { color: var(--bad); }
.state-queued, .state-processing, .state-pending, .state-expiring { color: var(--warn); }
.muted { color: var(--muted); }
.clock-note { margin: 0; padding: 6px 20px; border-bottom: 1px solid var(--line); color: var(--warn); font-size: 0.9rem; }
td.prompt { min-width: 10em; max-width: 28em; overflow-wrap: break-word; }
.explain { margin: 4px 0 0; }
.notice { border: 1px solid var(--accent); background: var(--panel); padding: 12px; border-radius: 6px; margin: 12px 0; }
.notice.error { border-color: var(--bad); }
.secret { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
.secret input { width: min(100%, 38em); font-family: ui-monospace, monospace; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 12px; background: var(--panel); }
.card .value { font-size: 1.6rem; font-weight: 700; }
ol.timeline { list-style: none; padding: 0; margin: 0; border-left: 3px solid var(--line); }
ol.timeline li { padding: 4px 0 8px 14px; }
.thumbs { display: flex; gap: 10px; flex-wrap: wrap; } .thumbs img { max-width: 160px; max-height: 120px; border: 1px solid var(--line); }
video { max-width: 100%; max-height: 360px; background: #000; }
.pager { margin-top: 12px; display: flex; gap: 12px; }
progress { width: 80px; }
td time { white-space: nowrap; }
@media (max-width: 640px) {
  main { padding: 12px; } header.top { padding: 8px 12px; } .clock-note { padding: 6px 12px; }
  th.optional, td.optional { display: none; }
  /* On a phone a table's rows become cards, each cell under its column's name (app.js copies the
     names into data-label): no column is cut off at the screen's edge, no timestamp squeezed. */
  .table-wrap table, .table-wrap tbody, .table-wrap tr { display: block; }
  .table-wrap thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  .table-wrap tr { border-bottom: 1px solid var(--line); padding: 6px 0; }
  .table-wrap td { display: block; position: relative; border: 0; padding: 3px 4px 3px calc(8em + 12px);
    min-height: 1.9em; overflow-wrap: anywhere; }
  .table-wrap td.optional { display: none; }
  .table-wrap td::before { content: attr(data-label); position: absolute; left: 4px; width: 8em;
    color: var(--muted); font-weight: 600; overflow-wrap: normal; }
  td.prompt { max-width: none; }
}
`;

export const DASHBOARD_JS = `
"use strict";
// Copy buttons: data-copy names the element whose value or text is copied.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = "value" in source ? source.value : source.textContent;
  navigator.clipboard.writeText(text).then(
    () => { button.textContent = "Copied"; },
    () => { if ("select" in source) source.select(); button.textContent = "Press Ctrl+C"; },
  );
});

// Each table cell carries its column's name, which a phone shows beside it (the rows become cards).
function labelCells() {
  for (const table of document.querySelectorAll(".table-wrap table")) {
    const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    for (const row of table.querySelectorAll("tbody tr"))
      [...row.children].forEach((cell, index) => { if (names[index]) cell.dataset.label = names[index]; });
  }
}
labelCells();

// The live task list: rows arrive as server-rendered HTML over server-sent events.
const live = document.querySelector("tbody[data-live]");
if (live && "EventSource" in window) {
  const status = document.getElementById("live-status");
  const source = new EventSource(live.dataset.live);
  source.addEventListener("open", () => { if (status) status.textContent = "Live: updates appear as they happen."; });
  source.addEventListener("error", () => { if (status) status.textContent = "Live updates paused; reconnecting…"; });
  // The header's balance follows the list: a task's charge or refund changes it.
  source.addEventListener("credits", (event) => {
    const credits = document.getElementById("credits");
    if (credits) credits.textContent = JSON.parse(event.data).credits;
  });
  source.addEventListener("task", (event) => {
    const update = JSON.parse(event.data);
    const template = document.createElement("template");
    template.innerHTML = update.html;
    const row = template.content.firstElementChild;
    if (!row) return;
    const current = document.getElementById(row.id);
    if (current) current.replaceWith(row);
    else if (update.placement === "top") {
      live.prepend(row);
      const empty = document.getElementById("no-tasks");
      if (empty) empty.remove();
    }
    labelCells();
  });
}
`;
