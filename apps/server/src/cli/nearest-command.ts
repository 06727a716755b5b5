/** The command a mistyped one most likely meant (`key` → `keys`), for the "unknown command" line. */

/** Edits between two words: insert, delete or replace one character, or swap two neighbours (`strat` → `start`). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        rows[i - 1]![j]! + 1,
        row[j - 1]! + 1,
        rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known command nearest to `typed`, if it is near enough to be a typo:
 * at most a third of its letters off (at least one), or the start of exactly one command.
 */
export function nearestCommand(typed: string, known: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  const starting = known.filter((command) => command.startsWith(word));
  if (word.length >= 2 && starting.length === 1) return starting[0];
  let best: { command: string; distance: number } | undefined;
  for (const command of known) {
    const distance = editDistance(word, command);
    if (!best || distance < best.distance) best = { command, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(best.command.length / 3)) ? best.command : undefined;
}
