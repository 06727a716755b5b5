/** Plain-text tables and times for the CLI's listings. */

export function formatTable(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return "(none)";
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** Service time as ISO 8601; empty when there is none. */
export function formatTime(time: number | null): string {
  return time === null ? "" : new Date(time).toISOString();
}
