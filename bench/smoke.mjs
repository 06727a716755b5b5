// Smoke mode, `--smoke` on any benchmark's command line: each runs for a second or two (a round,
// short loads, a few tasks) and prints its figures without judging them, so a benchmark that no
// longer runs fails CI (`pnpm bench:smoke`) rather than the next person who needs its figures.
// A benchmark's verdict (MISSED, its exit status) is for full runs only; in smoke mode it exits
// non-zero only when something broke. A smoke run's figures measure nothing (half-second loads,
// no warm-up): they show that the benchmark still computes them.

/** Whether this process runs a benchmark in smoke mode. */
export const smoke = process.argv.includes("--smoke");

/** `full` in a real run, `small` in smoke mode: the one place a benchmark sizes itself both ways. */
export function sized(full, small) {
  return smoke ? small : full;
}

/** A figure's verdict against its target: "met" or "MISSED", or that a smoke run does not judge it. */
export function verdict(met) {
  if (smoke) return "not judged in smoke mode";
  return met ? "met" : "MISSED";
}

/** The command line's positional arguments, `--smoke` left out (for benchmarks sized by position). */
export const positionals = process.argv.slice(2).filter((argument) => argument !== "--smoke");
