/** The API keys page: create (shown once), list, rotate with an overlap, revoke behind a confirmation. */
import type { ApiKeySummary } from "@genvideo/engine";
import { html } from "hono/html";
import { EXPIRY_CHOICES, humanDuration, humanTime } from "./format.js";
import { KEY_STATE_WORDS, keyLabel, keyState, successorOf } from "./key-state.js";
import { csrfField, type Html, shownOnce, stateBadge, type Viewer } from "./layout.js";
import { overlapFieldset } from "./webhooks-pages.js";

/** When the key stops, in words: "never", "in 30 d (…)", "ended …"; a revoked key says when it was revoked. */
function expiryText(key: ApiKeySummary, now: number): string {
  if (key.revokedAt !== null) return `revoked ${humanTime(key.revokedAt)}`;
  if (key.expiresAt === null) return "never";
  if (key.expiresAt <= now) return `ended ${humanTime(key.expiresAt)}`;
  return `${humanTime(key.expiresAt)} (in ${humanDuration(roundedUp(key.expiresAt - now))})`;
}

/** A remaining time rounded up to the unit it is said in (29 d 23 h is "30 d" left of a 30-day key). */
function roundedUp(ms: number): number {
  for (const unit of [86_400_000, 3_600_000, 60_000]) if (ms > unit) return Math.ceil(ms / unit) * unit;
  return Math.ceil(ms / 1000) * 1000;
}

export interface KeysPageData {
  keys: ApiKeySummary[];
  serviceNow: number;
  created?: { key: string; summary: ApiKeySummary; replaced?: ApiKeySummary };
  message?: string;
  problem?: string;
}

export function keysPageBody(viewer: Viewer, data: KeysPageData): Html {
  const { created } = data;
  const newest = [...data.keys].sort((a, b) => b.createdAt - a.createdAt);
  return html`${data.problem ? html`<p class="notice error" role="alert">${data.problem}</p>` : ""}
${data.message ? html`<p class="notice" role="status">${data.message}</p>` : ""}
${
  created
    ? shownOnce(
        "new-key",
        "New API key",
        created.key,
        `"${keyLabel(created.summary)}" (${created.summary.prefix}…): shown once, never again. Copy it now.${
          created.replaced?.expiresAt != null
            ? ` The key it replaces keeps working until ${humanTime(created.replaced.expiresAt)}.`
            : ""
        }`,
      )
    : ""
}
<h2>Create a key</h2>
<form class="filters" method="post" action="/dashboard/keys">
${csrfField(viewer)}
<input type="hidden" name="_form" value="${crypto.randomUUID()}">
<label>Name <input name="name" maxlength="64" placeholder="e.g. staging backend"></label>
<label>Expires <select name="expires">${EXPIRY_CHOICES.map((choice) => html`<option value="${choice.value}">${choice.label}</option>`)}</select></label>
<button type="submit">Create key</button>
</form>
<h2>Keys</h2>
<div class="table-wrap" tabindex="0"><table>
<thead><tr><th scope="col">Name</th><th scope="col" class="optional">Id</th><th scope="col">Prefix</th><th scope="col">State</th><th scope="col" class="optional">Created</th><th scope="col">Last used</th><th scope="col" class="optional">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>
${newest.map((key) => {
  const state = keyState(key, data.serviceNow);
  const successor = state === "expired" ? undefined : successorOf(key, data.keys);
  return html`<tr id="key-${key.id}">
<td>${keyLabel(key)}</td>
<td class="mono optional" data-key-id>${key.id}</td>
<td class="mono" data-prefix>${key.prefix}…</td>
<td>${stateBadge(state, KEY_STATE_WORDS[state])}${successor ? html` <span class="muted" data-replaced>replaced by <span class="mono">${successor.prefix}…</span></span>` : ""}</td>
<td class="optional">${humanTime(key.createdAt)}</td>
<td data-last-used>${key.lastUsedAt === null ? "never" : humanTime(key.lastUsedAt)}</td>
<td class="optional" data-expires>${expiryText(key, data.serviceNow)}</td>
<td>${
    state !== "active" && state !== "expiring"
      ? ""
      : successor
        ? html`<a href="/dashboard/keys/${key.id}/revoke">Revoke<span class="skip"> ${keyLabel(key)}</span></a>`
        : html`<a href="/dashboard/keys/${key.id}/rotate">Rotate<span class="skip"> ${keyLabel(key)}</span></a> · <a href="/dashboard/keys/${key.id}/revoke">Revoke<span class="skip"> ${keyLabel(key)}</span></a>`
  }</td>
</tr>`;
})}
</tbody>
</table></div>
<p class="muted">"Last used" is recorded at most once a minute per key (service time), so it may lag a little.</p>`;
}

/** How long a key made by rotating this one lives: as long as this one was made to. */
function successorLifetime(key: ApiKeySummary): string {
  return key.expiresAt === null
    ? "never expires, like this one"
    : `expires ${humanDuration(roundedUp(key.expiresAt - key.createdAt))} after it is made, as this one was made to`;
}

export function rotateKeyBody(viewer: Viewer, key: ApiKeySummary & { successor?: ApiKeySummary }): Html {
  if (key.successor)
    return html`<p class="notice" role="status"><strong>${keyLabel(key)}</strong> (<span class="mono">${key.prefix}…</span>) was already rotated: <span class="mono">${key.successor.prefix}…</span> replaces it, and it stops working ${humanTime(key.expiresAt)}. Rotate the new key instead.</p>
<p><a href="/dashboard/keys#key-${key.successor.id}">← API keys</a></p>`;
  return html`<p>Rotating <strong>${keyLabel(key)}</strong> (<span class="mono">${key.prefix}…</span>) creates a new key with the same name, which ${successorLifetime(key)}. The old key keeps working for the overlap you choose, then is refused.</p>
<form class="stack" method="post" action="/dashboard/keys/${key.id}/rotate">
${csrfField(viewer)}
${overlapFieldset("Keep the old key working for")}
<div class="actions"><button type="submit">Rotate key</button> <a href="/dashboard/keys">Cancel</a></div>
</form>`;
}

export function revokeKeyBody(viewer: Viewer, key: ApiKeySummary): Html {
  return html`<p class="notice error">Revoke <strong>${keyLabel(key)}</strong> (<span class="mono">${key.prefix}…</span>)? Every request with it is refused from the next one on (401). This cannot be undone.</p>
<form method="post" action="/dashboard/keys/${key.id}/revoke">
${csrfField(viewer)}
<div class="actions"><button class="danger" type="submit">Revoke key</button> <a href="/dashboard/keys">Cancel</a></div>
</form>`;
}

export function overlapMessage(ms: number): string {
  return ms === 0
    ? "The old key is refused from now on."
    : `The old key works for ${humanDuration(ms)} more.`;
}
