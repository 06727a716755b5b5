import { describe, expect, it } from "vitest";
import { PROMPT_MAX_LENGTH } from "./limits.js";
import { GenerationRequestSchema, requestFormOf, validateGenerationRequest } from "./request.js";
import { dataUri, JPEG_IMAGE, PNG_IMAGE, pngBytes, WEBP_IMAGE } from "./testing/images.js";

const ALLOWED_FIELDS =
  "prompt, model_type, aspect_ratio, start_frame, end_frame, reference_images, callback_url";

function issuesOf(body: unknown) {
  const result = validateGenerationRequest(body);
  if (result.success) throw new Error(`expected a refusal, got ${JSON.stringify(result.data)}`);
  return result.issues;
}

describe("validateGenerationRequest: accepted forms", () => {
  it.each([
    ["text", { prompt: "A red fox in the snow" }, "text"],
    [
      "text with every option",
      {
        prompt: "Waves",
        model_type: "gen-3",
        aspect_ratio: "9:16",
        callback_url: "https://example.com/hook",
      },
      "text",
    ],
    [
      "frame-to-frame",
      { prompt: "Day to night", model_type: "gen-3-fast", start_frame: JPEG_IMAGE, end_frame: PNG_IMAGE },
      "frame-to-frame",
    ],
    [
      "frame-to-frame with aspect ratio and callback",
      {
        prompt: "Day to night",
        start_frame: WEBP_IMAGE,
        end_frame: JPEG_IMAGE,
        aspect_ratio: "1:1",
        callback_url: "https://example.com/hook",
      },
      "frame-to-frame",
    ],
    ["one reference image", { prompt: "A teapot", reference_images: [PNG_IMAGE] }, "reference"],
    [
      "four reference images",
      {
        prompt: "A teapot",
        reference_images: [PNG_IMAGE, JPEG_IMAGE, WEBP_IMAGE, PNG_IMAGE],
        callback_url: "http://localhost:3000/hook",
      },
      "reference",
    ],
  ] as const)("accepts %s", (_name, body, form) => {
    const result = validateGenerationRequest(body);
    expect(result).toMatchObject({ success: true, data: body });
    if (result.success) expect(requestFormOf(result.data)).toBe(form);
  });

  it("applies the defaults and trims the prompt", () => {
    expect(validateGenerationRequest({ prompt: "  A red fox \n" })).toEqual({
      success: true,
      data: { prompt: "A red fox", model_type: "gen-3-fast", aspect_ratio: "16:9" },
    });
  });

  it("counts prompt length in code points, after trimming", () => {
    expect(validateGenerationRequest({ prompt: `  ${"🎬".repeat(PROMPT_MAX_LENGTH)}  ` }).success).toBe(true);
    const tooLong = (prompt: string) => {
      const result = validateGenerationRequest({ prompt });
      return result.success ? undefined : result.issues[0]?.message;
    };
    expect(tooLong(`${"🎬".repeat(PROMPT_MAX_LENGTH)}x`)).toMatch(/^prompt is 2001 characters long/);
    // A lone surrogate is a code point of its own, as the string iterator counts it.
    expect(tooLong(`${"é".repeat(PROMPT_MAX_LENGTH)}\ud800`)).toMatch(/^prompt is 2001 characters long/);
    expect(tooLong(`\udc00${"🎬".repeat(PROMPT_MAX_LENGTH - 1)}\ud83c`)).toMatch(
      /^prompt is 2001 characters long/,
    );
    expect(tooLong("x".repeat(PROMPT_MAX_LENGTH + 1))).toMatch(/^prompt is 2001 characters long/);
  });

  it("accepts a callback URL of any scheme (the server decides https and public addresses)", () => {
    expect(validateGenerationRequest({ prompt: "x", callback_url: "http://10.0.0.1/hook" }).success).toBe(
      true,
    );
  });
});

describe("validateGenerationRequest: refusals, each with its path and message", () => {
  const bigImage = dataUri("image/png", pngBytes(4097, 10));
  it.each<[string, unknown, { path: string; message: string | RegExp }[]]>([
    [
      "a body that is not an object",
      ["prompt"],
      [{ path: "", message: "The request body must be a JSON object." }],
    ],
    ["null as the body", null, [{ path: "", message: "The request body must be a JSON object." }]],
    ["a missing prompt", { model_type: "gen-3" }, [{ path: "prompt", message: "prompt is required." }]],
    [
      "a prompt that is not a string",
      { prompt: 42 },
      [{ path: "prompt", message: "prompt must be a string." }],
    ],
    [
      "an empty prompt",
      { prompt: "" },
      [{ path: "prompt", message: "prompt must not be empty or only whitespace." }],
    ],
    [
      "a whitespace prompt",
      { prompt: " \n\t " },
      [{ path: "prompt", message: "prompt must not be empty or only whitespace." }],
    ],
    [
      "a prompt over 2000 characters",
      { prompt: "a".repeat(2001) },
      [
        {
          path: "prompt",
          message: "prompt is 2001 characters long after trimming; at most 2000 are allowed.",
        },
      ],
    ],
    [
      "an unknown model",
      { prompt: "x", model_type: "gen-4" },
      [{ path: "model_type", message: 'model_type must be "gen-3-fast" or "gen-3".' }],
    ],
    [
      "an unknown aspect ratio",
      { prompt: "x", aspect_ratio: "4:3" },
      [{ path: "aspect_ratio", message: 'aspect_ratio must be "16:9", "9:16" or "1:1".' }],
    ],
    [
      "null for an optional field",
      { prompt: "x", callback_url: null },
      [
        {
          path: "callback_url",
          message: "callback_url must be a string; leave the field out instead of sending null.",
        },
      ],
    ],
    [
      "an unknown field, named",
      { prompt: "x", negative_prompt: "rain" },
      [
        {
          path: "negative_prompt",
          message: `Unknown field "negative_prompt". Allowed fields: ${ALLOWED_FIELDS}.`,
        },
      ],
    ],
    [
      "two unknown fields, each named",
      { prompt: "x", seed: 1, duration: 5 },
      [
        { path: "seed", message: /^Unknown field "seed"/ },
        { path: "duration", message: /^Unknown field "duration"/ },
      ],
    ],
    [
      "start_frame without end_frame",
      { prompt: "x", start_frame: JPEG_IMAGE },
      [
        {
          path: "end_frame",
          message: "end_frame is required with start_frame: a frame-to-frame request needs both frames.",
        },
      ],
    ],
    [
      "end_frame without start_frame",
      { prompt: "x", end_frame: JPEG_IMAGE },
      [
        {
          path: "start_frame",
          message: "start_frame is required with end_frame: a frame-to-frame request needs both frames.",
        },
      ],
    ],
    [
      "frames mixed with reference images",
      { prompt: "x", start_frame: JPEG_IMAGE, end_frame: JPEG_IMAGE, reference_images: [PNG_IMAGE] },
      [
        {
          path: "reference_images",
          message:
            "reference_images cannot be combined with start_frame or end_frame: send either both frames or reference images.",
        },
      ],
    ],
    [
      "no reference images",
      { prompt: "x", reference_images: [] },
      [
        {
          path: "reference_images",
          message: "reference_images must hold at least 1 image; leave the field out for a text request.",
        },
      ],
    ],
    [
      "five reference images",
      { prompt: "x", reference_images: [PNG_IMAGE, PNG_IMAGE, PNG_IMAGE, PNG_IMAGE, PNG_IMAGE] },
      [{ path: "reference_images", message: "reference_images holds 5 images; at most 4 are allowed." }],
    ],
    [
      "reference images that are not an array",
      { prompt: "x", reference_images: PNG_IMAGE },
      [{ path: "reference_images", message: "reference_images must be an array of 1 to 4 image data URIs." }],
    ],
    [
      "a reference image that is not a string",
      { prompt: "x", reference_images: [PNG_IMAGE, 7] },
      [
        {
          path: "reference_images.1",
          message: "Each reference image must be a string holding an image data URI.",
        },
      ],
    ],
    [
      "a reference image too large, by index",
      { prompt: "x", reference_images: [PNG_IMAGE, PNG_IMAGE, bigImage] },
      [{ path: "reference_images.2", message: "The image is 4097×10 px; each side may be at most 4096 px." }],
    ],
    [
      "a frame whose bytes do not match its type",
      { prompt: "x", start_frame: JPEG_IMAGE.replace("image/jpeg", "image/png"), end_frame: JPEG_IMAGE },
      [{ path: "start_frame", message: "The data URI declares image/png but the bytes are a JPEG image." }],
    ],
    [
      "a frame that is a URL, not a data URI",
      { prompt: "x", start_frame: JPEG_IMAGE, end_frame: "https://example.com/end.jpg" },
      [
        {
          path: "end_frame",
          message: "Expected an image data URI of the form data:image/<jpeg|png|webp>;base64,<data>.",
        },
      ],
    ],
    [
      "a callback URL that is not absolute",
      { prompt: "x", callback_url: "/webhooks" },
      [
        {
          path: "callback_url",
          message: "callback_url must be an absolute URL, such as https://example.com/webhooks/genvideo.",
        },
      ],
    ],
    [
      "a callback URL without a host",
      { prompt: "x", callback_url: "mailto:hooks@example.com" },
      [{ path: "callback_url", message: /^callback_url must be an absolute URL/ }],
    ],
    [
      "a callback URL with spaces",
      { prompt: "x", callback_url: " https://example.com/hook" },
      [{ path: "callback_url", message: /^callback_url must be an absolute URL/ }],
    ],
    [
      "a callback URL over 2048 characters",
      { prompt: "x", callback_url: `https://example.com/${"a".repeat(2048)}` },
      [{ path: "callback_url", message: "callback_url is 2068 characters long; at most 2048 are allowed." }],
    ],
  ])("refuses %s", (_name, body, expected) => {
    const issues = issuesOf(body);
    expect(issues).toHaveLength(expected.length);
    expected.forEach((issue, index) => {
      expect(issues[index]?.path).toBe(issue.path);
      expect(issues[index]?.message).toMatch(issue.message);
    });
  });

  it("reports every violation at once", () => {
    const issues = issuesOf({
      prompt: "",
      model_type: "x",
      start_frame: "nope",
      reference_images: [],
      colour: "red",
    });
    expect(issues.map((issue) => issue.path)).toEqual([
      "prompt",
      "model_type",
      "start_frame",
      "reference_images",
      "colour",
      "reference_images",
      "end_frame",
    ]);
  });

  it("counts reference images even when one of them is bad", () => {
    const issues = issuesOf({
      prompt: "x",
      reference_images: [PNG_IMAGE, PNG_IMAGE, PNG_IMAGE, PNG_IMAGE, "x"],
    });
    expect(issues.map((issue) => issue.path)).toEqual(["reference_images.4", "reference_images"]);
  });

  it("gives the same messages through the schema itself", () => {
    const result = GenerationRequestSchema.safeParse({ prompt: "x", extra: 1 });
    expect(result.error?.issues[0]?.message).toBe(
      `Unknown field "extra". Allowed fields: ${ALLOWED_FIELDS}.`,
    );
  });
});
