import type { WebhookCheckAnswer } from "./deliver.js";
import type { ReceiverCase } from "./receiver-cases.js";

/** `skip`: not sent, because the receiver timed out (30 s) or could not be reached. */
export type WebhookCheckGrade = "pass" | "warn" | "fail" | "skip";

interface Verdict {
  grade: WebhookCheckGrade;
  detail: string;
}

function answered(answer: WebhookCheckAnswer): string {
  if (answer.status === null) return answer.error === "timeout" ? "no answer within 30 s" : answer.error!;
  const redirect = answer.location ? ` to ${answer.location}` : "";
  return `answered ${answer.status}${redirect} in ${answer.durationMs} ms`;
}

/** What an answer means for one case: the expected class of status, or the reason it is wrong. */
export function gradeAnswer(testCase: ReceiverCase, answer: WebhookCheckAnswer): Verdict {
  const { status } = answer;
  const what = answered(answer);
  if (status !== null && status >= 300 && status < 400) {
    return { grade: "fail", detail: `${what}: redirects are not followed, so the delivery fails` };
  }
  if (testCase.expect === "accept") {
    if (status !== null && status >= 200 && status < 300) return { grade: "pass", detail: what };
    return { grade: testCase.refusedGrade ?? "fail", detail: `${what}, expected a 2xx` };
  }
  if (status !== null && status >= 400 && status < 500) return { grade: "pass", detail: `refused: ${what}` };
  if (status !== null && status >= 200 && status < 300)
    return { grade: "fail", detail: `accepted it: ${what}` };
  if (answer.error === "timeout") return { grade: "fail", detail: what };
  // Refused all the same, but as a crash: it fills error logs and hides real faults among forgeries.
  return { grade: "warn", detail: `refused, but ${what}; answer a 4xx when verification fails` };
}
