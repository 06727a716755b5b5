import type { ConformanceReport } from "./check-deployment.js";

/**
 * The report as text a person reads in one screen: one line per check, and under each failure what
 * is wrong, the request, the answer's status and the rule to read.
 *
 * @example
 * ```ts
 * expect(report.ok, formatConformanceReport(report)).toBe(true);
 * ```
 */
export function formatConformanceReport(report: ConformanceReport): string {
  const lines = [`Conformance of ${report.baseUrl} to the genvideo API contract (${report.mode})`, ""];
  for (const check of report.checks) {
    const mark = check.outcome === "skipped" ? "skip" : check.outcome;
    lines.push(`${mark.padEnd(4)}  ${check.id.padEnd(26)} ${check.title}`);
    if (check.outcome === "skipped") lines.push(`      (${check.reason})`);
    if (check.outcome !== "fail") continue;
    for (const problem of check.problems) lines.push(`      - ${problem}`);
    for (const { request, answer } of check.exchanges.slice(-1))
      lines.push(`      ${request.method} ${request.url} -> ${answer.status} ${oneLine(answer.body)}`);
    for (const note of check.notes ?? []) lines.push(`      note: ${note}`);
    lines.push(`      rule: ${check.rule}`);
  }
  const { pass, fail, skipped } = report.counts;
  lines.push(
    "",
    `${pass} passed, ${fail} failed, ${skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  return lines.join("\n");
}

function oneLine(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}
