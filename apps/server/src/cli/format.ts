/** Plain-text tables for the CLI's listings (times in them are `isoTime`s). */

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
