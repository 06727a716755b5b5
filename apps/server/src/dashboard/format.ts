/** How the dashboard writes times, amounts and states. */

/**
 * `2026-11-23 22:50:01 UTC`, to the second, for reading on a page; times are the service's (see
 * GENVIDEO_TIME_SCALE). The machine form, in `<time datetime>` and the CLI, is `isoTime`.
 */
export function humanTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

export function signedAmount(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

/**
 * A duration for reading, for overlaps and expiries (`now`, `1 h`, `7 d`, `30 min`). Not what an
 * operator types: a setting's duration (`7d`) is written by the config's own `settingDuration`.
 */
export function humanDuration(ms: number): string {
  if (ms === 0) return "now";
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** The overlaps offered when rotating a key or the signing secret. */
export const OVERLAP_CHOICES: readonly { value: string; label: string; ms: number }[] = [
  { value: "0", label: "None: the old one stops now", ms: 0 },
  { value: "1h", label: "1 hour", ms: 3_600_000 },
  { value: "24h", label: "24 hours", ms: 86_400_000 },
  { value: "7d", label: "7 days", ms: 7 * 86_400_000 },
];

/** The expiries offered when creating a key. */
export const EXPIRY_CHOICES: readonly { value: string; label: string; ms: number | null }[] = [
  { value: "never", label: "Never", ms: null },
  { value: "1d", label: "1 day", ms: 86_400_000 },
  { value: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "30 days", ms: 30 * 86_400_000 },
  { value: "90d", label: "90 days", ms: 90 * 86_400_000 },
];

/** `1 attempt`, `5 attempts`: a count in plain words. */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
