/**
 * A service time as text for operators' tools: ISO 8601 in UTC to the millisecond, the form the
 * API's `created_at` uses, that scripts parse and people can paste into a query. The CLI's listings
 * and the dashboard's `<time datetime>` write it; the dashboard's readable form is `humanTime`
 * (dashboard/format.ts).
 */

/** `2026-11-23T22:50:01.000Z`; empty when there is no time (a key that never expires). */
export function isoTime(ms: number | null): string {
  return ms === null ? "" : new Date(ms).toISOString();
}
