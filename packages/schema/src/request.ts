/**
 * The create request (docs/api.md#request-forms and #fields): three forms in one flat object,
 * every refusal reported with the field's path and a sentence a person understands.
 */
import * as z from "zod/mini";
import {
  ASPECT_RATIOS,
  DEFAULT_ASPECT_RATIO,
  DEFAULT_MODEL_TYPE,
  MODEL_TYPES,
  type ModelType,
} from "./catalog.js";
import { inspectImageDataUri } from "./image-data-uri.js";
import {
  CALLBACK_URL_MAX_LENGTH,
  PROMPT_MAX_LENGTH,
  PROMPT_MIN_LENGTH,
  REFERENCE_IMAGES_MAX_COUNT,
  REFERENCE_IMAGES_MIN_COUNT,
} from "./limits.js";
import type { ValidationIssue } from "./validation-issue.js";

/** Top-level fields a create request may carry; anything else is refused by name. */
export const GENERATION_REQUEST_FIELDS = [
  "prompt",
  "model_type",
  "aspect_ratio",
  "start_frame",
  "end_frame",
  "reference_images",
  "callback_url",
] as const;

function quoted(values: readonly string[]): string {
  const list = values.map((value) => `"${value}"`);
  return list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} or ${list.at(-1)}`;
}

// null is named apart because JSON clients often send it for "not set"; leaving the field out is the fix.
function typeError(field: string, expectation: string, { optional = true } = {}) {
  return (issue: { input?: unknown }): string => {
    if (issue.input === undefined) return `${field} is required.`;
    const sentence = `${field} must be ${expectation}`;
    if (issue.input === null && optional) return `${sentence}; leave the field out instead of sending null.`;
    return `${sentence}.`;
  };
}

const SURROGATE = /[\uD800-\uDFFF]/;

// A prompt may be as long as the body: counted without the string iterator, which made a string of
// each code point (4 s for 54 MiB), and at once when no surrogate can be in it (a one-byte string).
function codePointLength(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let length = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    if (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1))) {
      length--;
      index++;
    }
  }
  return length;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

const PromptSchema = z.string({ error: typeError("prompt", "a string", { optional: false }) }).check(
  z.trim(),
  z.superRefine((prompt, context) => {
    const length = codePointLength(prompt);
    if (length < PROMPT_MIN_LENGTH) {
      context.addIssue({ code: "custom", message: "prompt must not be empty or only whitespace." });
    } else if (length > PROMPT_MAX_LENGTH) {
      context.addIssue({
        code: "custom",
        message: `prompt is ${length} characters long after trimming; at most ${PROMPT_MAX_LENGTH} are allowed.`,
      });
    }
  }),
);

const ImageDataUriSchema = (field: string) =>
  z.string({ error: typeError(field, "a string holding an image data URI") }).check(
    z.superRefine((value, context) => {
      const image = inspectImageDataUri(value);
      if (!image.ok) context.addIssue({ code: "custom", message: image.message });
    }),
  );

const CallbackUrlSchema = z.string({ error: typeError("callback_url", "a string") }).check(
  z.superRefine((url, context) => {
    if (url.length > CALLBACK_URL_MAX_LENGTH) {
      context.addIssue({
        code: "custom",
        message: `callback_url is ${url.length} characters long; at most ${CALLBACK_URL_MAX_LENGTH} are allowed.`,
      });
    } else if (!isAbsoluteUrl(url)) {
      context.addIssue({
        code: "custom",
        message: "callback_url must be an absolute URL, such as https://example.com/webhooks/genvideo.",
      });
    }
  }),
);

// Syntax only: whether the scheme is https and the host public is the server's call (INVALID_CALLBACK_URL).
function isAbsoluteUrl(text: string): boolean {
  // The URL parser forgives surrounding and embedded whitespace; a callback URL has none.
  for (const character of text) if (character <= " " || character === "\u007f") return false;
  try {
    const url = new URL(text);
    return url.host !== "" && text.toLowerCase().startsWith(`${url.protocol}//`);
  } catch {
    return false;
  }
}

/**
 * Why `count` reference images are refused, or undefined when that many are allowed. A server can
 * ask it before validating any image, so that a body of thousands of them costs one check.
 *
 * @example
 * referenceImagesCountProblem(9); // "reference_images holds 9 images; at most 4 are allowed."
 */
export function referenceImagesCountProblem(count: number): string | undefined {
  if (count < REFERENCE_IMAGES_MIN_COUNT)
    return `reference_images must hold at least ${REFERENCE_IMAGES_MIN_COUNT} image; leave the field out for a text request.`;
  if (count > REFERENCE_IMAGES_MAX_COUNT)
    return `reference_images holds ${count} images; at most ${REFERENCE_IMAGES_MAX_COUNT} are allowed.`;
  return undefined;
}

const ReferenceImagesSchema = z
  .array(ImageDataUriSchema("Each reference image"), {
    error: typeError(
      "reference_images",
      `an array of ${REFERENCE_IMAGES_MIN_COUNT} to ${REFERENCE_IMAGES_MAX_COUNT} image data URIs`,
    ),
  })
  .check(
    z.superRefine(
      (images, context) => {
        const problem = referenceImagesCountProblem(images.length);
        if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
      },
      { when: (payload) => Array.isArray(payload.value) },
    ),
  );

// The form rules look at several fields, and run even when a field failed so that every violation
// is reported at once; they only need to know which fields are present.
function checkRequestForm(body: Record<string, unknown>, context: z.core.$RefinementCtx<unknown>): void {
  const has = (field: string) => body[field] !== undefined;
  const hasFrames = has("start_frame") || has("end_frame");
  if (hasFrames && has("reference_images")) {
    context.addIssue({
      code: "custom",
      path: ["reference_images"],
      message:
        "reference_images cannot be combined with start_frame or end_frame: send either both frames or reference images.",
    });
  }
  if (has("start_frame") && !has("end_frame")) {
    context.addIssue({
      code: "custom",
      path: ["end_frame"],
      message: "end_frame is required with start_frame: a frame-to-frame request needs both frames.",
    });
  }
  if (has("end_frame") && !has("start_frame")) {
    context.addIssue({
      code: "custom",
      path: ["start_frame"],
      message: "start_frame is required with end_frame: a frame-to-frame request needs both frames.",
    });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Body of `POST /api/gen/generate`. Three forms: text (`prompt` only), frame-to-frame
 * (`start_frame` and `end_frame` together), reference (`reference_images`, 1 to 4); frames and
 * reference images never mix, `callback_url` fits all. Parsing applies the defaults
 * (`model_type` `gen-3-fast`, `aspect_ratio` `16:9`) and trims the prompt.
 * Prefer {@link validateGenerationRequest}, which reports issues in the contract's shape.
 *
 * @example
 * const result = GenerationRequestSchema.safeParse({ prompt: "A red fox in the snow" });
 * if (result.success) result.data.model_type; // "gen-3-fast"
 */
export const GenerationRequestSchema = z
  .strictObject(
    {
      prompt: PromptSchema,
      model_type: z._default(
        z.enum(MODEL_TYPES as readonly [ModelType, ...ModelType[]], {
          error: typeError("model_type", quoted(MODEL_TYPES)),
        }),
        DEFAULT_MODEL_TYPE,
      ),
      aspect_ratio: z._default(
        z.enum(ASPECT_RATIOS, { error: typeError("aspect_ratio", quoted(ASPECT_RATIOS)) }),
        DEFAULT_ASPECT_RATIO,
      ),
      start_frame: z.optional(ImageDataUriSchema("start_frame")),
      end_frame: z.optional(ImageDataUriSchema("end_frame")),
      reference_images: z.optional(ReferenceImagesSchema),
      callback_url: z.optional(CallbackUrlSchema),
    },
    {
      error: (issue) => {
        if (issue.code === "unrecognized_keys") return issue.keys.map(unknownFieldMessage).join(" ");
        return issue.code === "invalid_type" ? "The request body must be a JSON object." : undefined;
      },
    },
  )
  .check(
    z.superRefine((body, context) => checkRequestForm(body, context), {
      when: (payload) => isPlainObject(payload.value),
    }),
  );

/** A validated create request, defaults applied: what the engine stores and renders. */
export type GenerationRequest = z.output<typeof GenerationRequestSchema>;
/** What a client may send: `model_type` and `aspect_ratio` optional. */
export type GenerationRequestInput = z.input<typeof GenerationRequestSchema>;

/** The three request forms. */
export type GenerationRequestForm = "text" | "frame-to-frame" | "reference";

/**
 * Which form a validated request has.
 *
 * @example
 * requestFormOf({ prompt: "Waves", start_frame, end_frame, model_type: "gen-3-fast", aspect_ratio: "16:9" }); // "frame-to-frame"
 */
export function requestFormOf(request: GenerationRequest): GenerationRequestForm {
  if (request.start_frame !== undefined) return "frame-to-frame";
  if (request.reference_images !== undefined) return "reference";
  return "text";
}

/** Outcome of {@link validateGenerationRequest}. */
export type GenerationRequestValidation =
  | { success: true; data: GenerationRequest }
  | { success: false; issues: ValidationIssue[] };

/**
 * Validates a parsed JSON body against the create request rules. On success `data` is normalized
 * (defaults applied, prompt trimmed); on failure `issues` lists every violation with the field's
 * path, ready for the `issues` of a 400 `INVALID_REQUEST` body.
 *
 * @example
 * const result = validateGenerationRequest({ prompt: "Waves", start_frame: frame, colour: "red" });
 * // { success: false, issues: [
 * //   { path: "colour", message: 'Unknown field "colour". Allowed fields: prompt, model_type, ...' },
 * //   { path: "end_frame", message: "end_frame is required with start_frame: ..." } ] }
 */
export function validateGenerationRequest(body: unknown): GenerationRequestValidation {
  const result = GenerationRequestSchema.safeParse(body);
  if (result.success) return { success: true, data: result.data };
  const issues: ValidationIssue[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) issues.push({ path: key, message: unknownFieldMessage(key) });
    } else {
      issues.push({ path: issue.path.map(String).join("."), message: issue.message });
    }
  }
  return { success: false, issues };
}

function unknownFieldMessage(field: string): string {
  return `Unknown field "${field}". Allowed fields: ${GENERATION_REQUEST_FIELDS.join(", ")}.`;
}
