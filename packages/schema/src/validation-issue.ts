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
 * The `message` of a refused request: its first issue, and how many more there are (all of them are
 * in `issues`). One home for the wording, so the service and its documented examples say the same.
 *
 * @example
 * validationMessage([{ path: "prompt", message: "prompt is required." }, other]);
 * // "prompt is required. (and 1 more issue)"
 */
export function validationMessage(issues: readonly ValidationIssue[]): string {
  const [first] = issues;
  if (!first) return "The request is invalid.";
  const more = issues.length - 1;
  return more === 0
    ? first.message
    : `${first.message} (and ${more} more ${more === 1 ? "issue" : "issues"})`;
}
