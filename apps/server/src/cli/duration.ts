/** Parses the CLI's durations: `24h`, `30m`, `90s`, `2d`, `500ms`, or plain seconds. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return undefined;
  const milliseconds = Number(match[1]) * UNITS[match[2] ?? "s"]!;
  return Number.isFinite(milliseconds) ? Math.round(milliseconds) : undefined;
}
