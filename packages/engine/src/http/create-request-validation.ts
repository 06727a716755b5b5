import {
  GENERATION_REQUEST_FIELDS,
  type GenerationRequest,
  REFERENCE_IMAGES_MAX_COUNT,
  referenceImagesCountProblem,
  VALIDATION_ISSUES_MAX_COUNT,
  type ValidationIssue,
  validateGenerationRequest,
} from "@genvideo/schema";

/** Outcome of {@link validateCreateRequest}: at most `VALIDATION_ISSUES_MAX_COUNT` issues, `total` counts them all. */
export type CreateRequestValidation =
  | { success: true; data: GenerationRequest }
  | { success: false; issues: ValidationIssue[]; total: number };

/** An unknown field's name longer than this is quoted cut, in its path and message. */
const FIELD_NAME_MAX_LENGTH = 64;
/** An issue's message longer than this is cut (a message may quote what the client sent). */
const MESSAGE_MAX_LENGTH = 400;

const KNOWN_FIELDS: ReadonlySet<string> = new Set(GENERATION_REQUEST_FIELDS);

/**
 * Validates a parsed create body with work and an answer bounded whatever it holds: the shape is
 * checked first and cheaply (unknown fields counted, `reference_images` counted), and only then
 * does the schema look at values, given the known fields, the first unknown ones and at most
 * `REFERENCE_IMAGES_MAX_COUNT` images. Validating every element of a long array and listing every
 * issue made a 2 MiB body a 500 and a 64 MiB one (the limit then) a crashed process.
 *
 * @example
 * const validation = validateCreateRequest({ prompt: "x", reference_images: Array(50_000).fill(0) });
 * // { success: false, total: 5, issues: [{ path: "reference_images", message: "reference_images holds 50000 images; ..." }, ...] }
 */
export function validateCreateRequest(body: unknown): CreateRequestValidation {
  if (!isPlainObject(body)) return withTotal(validateGenerationRequest(body), 0, []);

  const checked: [string, unknown][] = [];
  let unknownCount = 0;
  for (const field in body) {
    if (KNOWN_FIELDS.has(field)) checked.push([field, body[field]]);
    else if (++unknownCount <= VALIDATION_ISSUES_MAX_COUNT) checked.push([clipped(field), body[field]]);
  }
  const shapeIssues: ValidationIssue[] = [];
  const images = body.reference_images;
  if (Array.isArray(images) && images.length > REFERENCE_IMAGES_MAX_COUNT) {
    shapeIssues.push({ path: "reference_images", message: referenceImagesCountProblem(images.length)! });
    // Still looked at: the first images' own faults, and which form the request takes.
    const index = checked.findIndex(([field]) => field === "reference_images");
    checked[index] = ["reference_images", images.slice(0, REFERENCE_IMAGES_MAX_COUNT)];
  }
  const unlisted = Math.max(0, unknownCount - VALIDATION_ISSUES_MAX_COUNT);
  // Object.fromEntries defines own properties: a "__proto__" field stays a field.
  return withTotal(validateGenerationRequest(Object.fromEntries(checked)), unlisted, shapeIssues);
}

function withTotal(
  result: ReturnType<typeof validateGenerationRequest>,
  unlisted: number,
  shapeIssues: ValidationIssue[],
): CreateRequestValidation {
  if (result.success && shapeIssues.length === 0) return result;
  const all = [...shapeIssues, ...(result.success ? [] : result.issues)];
  return {
    success: false,
    issues: all.slice(0, VALIDATION_ISSUES_MAX_COUNT).map(({ path, message }) => ({
      path,
      message: message.length > MESSAGE_MAX_LENGTH ? `${message.slice(0, MESSAGE_MAX_LENGTH)}…` : message,
    })),
    total: all.length + unlisted,
  };
}

function clipped(field: string): string {
  return field.length > FIELD_NAME_MAX_LENGTH ? `${field.slice(0, FIELD_NAME_MAX_LENGTH)}…` : field;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
