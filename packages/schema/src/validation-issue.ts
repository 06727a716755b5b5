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
