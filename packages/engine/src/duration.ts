/** A span of time: text such as `"90s"`, `"1h30m"` or `"7d"`, or a number of milliseconds. */
export type Duration = string | number;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const TERM = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?/y;

/**
 * Milliseconds in a duration, by the one set of rules every genvideo duration
 * follows (the server's settings and CLI flags, `[[delay:…]]` prompt markers,
 * the msw mock's options):
 * - A number is milliseconds, as given (finite, not negative).
 * - Text is one or more terms, each a decimal amount and a unit: `ms`, `s`,
 *   `m`, `h` or `d` (lower case), added up: `1h30m`, `1h 30m`, `1.5s`.
 *   Spaces may stand between terms and between an amount and its unit.
 * - Text that is a lone amount without a unit is seconds: `"90"` is 90 s.
 * - The result is rounded to the whole millisecond.
 * Anything else (empty text, a sign, another unit, a unit without an amount)
 * throws a `RangeError` that quotes the input.
 *
 * @example
 * parseDuration("1h30m"); // 5_400_000
 * parseDuration("90"); // 90_000
 * parseDuration(250); // 250
 */
export function parseDuration(value: Duration): number {
  if (typeof value === "number") {
    if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`invalid duration: ${value}`);
    return value;
  }
  const text = value.trim();
  let total = 0;
  let terms = 0;
  let unitless = false;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < text.length) {
    const match = TERM.exec(text);
    if (!match || unitless) return refuse(value);
    const [, amount = "", unit] = match;
    if (unit === undefined) unitless = true;
    total += Number(amount) * UNIT_MS[unit ?? "s"]!;
    terms++;
    while (text[TERM.lastIndex] === " ") TERM.lastIndex++;
  }
  // A unitless amount is a duration only on its own: "1h 30" is a mistake, not 1 h 30 s.
  if (terms === 0 || (unitless && terms > 1) || !Number.isFinite(total)) return refuse(value);
  return Math.round(total);
}

function refuse(value: string): never {
  throw new RangeError(`invalid duration "${value}": use forms like 500ms, 90s, 10m, 1h30m or 7d`);
}
