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

/**
 * A span of time for reading, rounded to the unit it is said in: `3 d`, `24 h`, `24 min`, `40 s`.
 * Below twice a unit the next smaller one is used, so that "1 d" never stands for 47 hours.
 */
export function roughDuration(ms: number): string {
  for (const [unit, name] of [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
  ] as const)
    if (ms >= 2 * unit) return `${Math.round(ms / unit)} ${name}`;
  return `${Math.round(ms / 1000)} s`;
}
