// The benchmarks' report tables: the header row, a dashed rule, then the rows;
// the first column left-aligned, the figures right-aligned.
export function textTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  "),
  );
  lines.splice(1, 0, widths.map((width) => "-".repeat(width)).join("  "));
  return lines.join("\n");
}
