import type { WebhookReceiverReport } from "./check-webhook-receiver.js";

/**
 * The report as plain text: one line per case (grade, title, what happened), and under each warning
 * or failure why it matters and the section of docs/webhooks.md to read.
 *
 * @example
 * ```ts
 * expect(report.ok, formatWebhookCheckReport(report)).toBe(true);
 * ```
 */
export function formatWebhookCheckReport(report: WebhookReceiverReport): string {
  const signatures =
    report.secrets > 1 ? `; ${report.secrets} signatures per delivery, as during a secret rotation` : "";
  const lines = [`Webhook receiver check of ${report.target} (task id ${report.taskId}${signatures})`, ""];
  for (const entry of report.cases) {
    lines.push(`${entry.grade.padEnd(4)}  ${entry.title}: ${entry.detail}`);
    if (entry.grade === "warn" || entry.grade === "fail") {
      lines.push(`      why: ${entry.why}`, `      see: ${entry.docs}`);
    }
  }
  const { pass, warn, fail, skip } = report.counts;
  lines.push("", `${pass} passed, ${warn} warned, ${fail} failed${skip ? `, ${skip} not sent` : ""}`);
  for (const note of report.notes) lines.push(`Note: ${note}`);
  return lines.join("\n");
}
