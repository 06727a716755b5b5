import * as z from "zod/mini";

/**
 * One reason a request was refused: `path` names the field the way a person reads it
 * (`prompt`, `reference_images.2`; empty for the body itself), `message` says what is wrong in a sentence.
 */
export const ValidationIssueSchema = z.object({
  path: z.string(),
  message: z.string(),
});

export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/**
 * The `message` of a refused request: its first issue and how many more there are, and, when
 * `issues` lists only the first `issues.length` of `total`, that it does. One home for the
 * wording, so the service and its documented examples say the same.
 *
 * @example
 * validationMessage([{ path: "prompt", message: "prompt is required." }, other]);
 * // "prompt is required. (and 1 more issue)"
 * validationMessage(firstTwenty, 52_409); // "... (and 52408 more issues; issues lists the first 20)"
 */
export function validationMessage(issues: readonly ValidationIssue[], total: number = issues.length): string {
  const [first] = issues;
  if (!first) return "The request is invalid.";
  const more = total - 1;
  if (more < 1) return first.message;
  const count = `${more} more ${more === 1 ? "issue" : "issues"}`;
  if (total > issues.length)
    return `${first.message} (and ${count}; issues lists the first ${issues.length})`;
  return `${first.message} (and ${count})`;
}
