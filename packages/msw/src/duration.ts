const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A span of time: `"500ms"`, `"90s"`, `"10m"`, `"1h30m"`, or a number of milliseconds. */
export type Duration = string | number;

/**
 * Parses `"10m"`, `"90s"`, `"1h30m"` or a number of milliseconds into milliseconds.
 *
 * @example
 * parseDuration("1h30m"); // 5_400_000
 */
export function parseDuration(value: Duration): number {
  if (typeof value === "number") {
    if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`invalid duration: ${value}`);
    return value;
  }
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== value.trim().replace(/\s+/g, "")) {
    throw new RangeError(`invalid duration "${value}": use forms like 500ms, 90s, 10m, 1h30m`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * units[unit as string]!, 0);
}
