// What a soak's samples say about growth: per column, the least-squares slope over the second
// half of the run (after warm-up) and whether that is growth or noise. A metric grows when its
// rise over the second half is more than twice the scatter of its samples around the line and
// would add more than 5% of its mean every 10 minutes; a sawtooth (a heap between two
// collections, descriptors of the connections in flight) has a slope but no growth.

/**
 * The watched columns: what must stay flat for a server that runs for weeks. Memory is watched as
 * JavaScript objects (heap_used_mb) and native memory (native_mb, outside V8's heap): raw RSS
 * steps by tens of MiB whenever V8 resizes its young generation, with no leak. Descriptors are
 * watched as files: the socket count follows the load's connection pools, and a connection the
 * server forgot shows as CLOSE_WAIT (`close_wait`, a column to read, brief ones being normal).
 */
export const WATCHED = ["native_mb", "heap_used_mb", "file_fds", "db_mb", "video_files"];

function secondHalf(rows, column) {
  return rows
    .slice(Math.floor(rows.length / 2))
    .map((row) => [Number(row.t_s) / 60, Number(row[column])])
    .filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
}

/** Slope per minute, the rise it makes over the second half, the scatter around it, and the mean. */
export function trend(rows, column) {
  const points = secondHalf(rows, column);
  if (points.length < 2) return { slope: 0, rise: 0, scatter: 0, mean: 0 };
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const mean = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const den = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  const slope = den === 0 ? 0 : points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - mean), 0) / den;
  const residuals = points.map(([x, y]) => y - (mean + slope * (x - meanX)));
  const scatter = Math.sqrt(residuals.reduce((sum, r) => sum + r * r, 0) / points.length);
  const span = points.at(-1)[0] - points[0][0];
  return { slope, rise: slope * span, scatter, mean };
}

export function grows(rows, column) {
  const { slope, rise, scatter, mean } = trend(rows, column);
  return rise > 2 * scatter && mean > 0 && (slope * 10) / mean > 0.05;
}

/** The summary printed at the end of a soak (or for a CSV it wrote: `node soak/run.mjs --verdict <csv>`). */
export function report(rows, columns, source) {
  const minutes = Number(rows.at(-1).t_s) / 60;
  const lines = [`soak: ${rows.length} samples over ${minutes.toFixed(1)} min (${source})`];
  for (const column of columns.filter((name) => name !== "t_s")) {
    const { slope, scatter } = trend(rows, column);
    lines.push(
      `  ${column.padEnd(16)} start ${String(rows[0][column]).padStart(9)}  end ${String(rows.at(-1)[column]).padStart(9)}  slope ${slope.toFixed(3)}/min ± ${scatter.toFixed(2)} (second half)`,
    );
  }
  // A CSV from an earlier soak may lack a column watched now: say so rather than call it flat.
  const watched = WATCHED.filter((column) => columns.includes(column));
  const missing = WATCHED.filter((column) => !columns.includes(column));
  const growing = watched.filter((column) => grows(rows, column));
  const last = rows.at(-1);
  const tail = `${last.errors_5xx} 5xx, ${last.failures} failed requests, ${last.resets} connection resets${missing.length > 0 ? `; not in this CSV: ${missing.join(", ")}` : ""}`;
  lines.push(
    growing.length === 0
      ? `verdict: flat — ${watched.join(", ")} level off in the second half; ${tail}`
      : `verdict: growing — ${growing.join(", ")} still climb in the second half beyond their noise; ${tail}`,
  );
  return lines.join("\n");
}

/** Rows of a CSV the soak wrote. */
export function parseCsv(text) {
  const [header, ...lines] = text.trim().split("\n");
  const columns = header.split(",");
  return {
    columns,
    rows: lines.map((line) =>
      Object.fromEntries(line.split(",").map((value, index) => [columns[index], value])),
    ),
  };
}
