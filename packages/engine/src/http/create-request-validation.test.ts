import { REFERENCE_IMAGES_MAX_COUNT, VALIDATION_ISSUES_MAX_COUNT } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { validateCreateRequest } from "./create-request-validation.js";

/** A real 1×1 PNG. */
const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("validateCreateRequest", () => {
  it("accepts a valid request with the schema's defaults", () => {
    expect(validateCreateRequest({ prompt: " Fox ", reference_images: [PNG] })).toEqual({
      success: true,
      data: { prompt: "Fox", model_type: "gen-3-fast", aspect_ratio: "16:9", reference_images: [PNG] },
    });
  });

  it("counts reference images before looking at any, and looks at the first few only", () => {
    const images = [PNG, 42, ...Array.from({ length: 99_998 }, () => PNG)];
    const validation = validateCreateRequest({ prompt: "x", reference_images: images });
    expect(validation).toEqual({
      success: false,
      total: 2,
      issues: [
        { path: "reference_images", message: "reference_images holds 100000 images; at most 4 are allowed." },
        { path: "reference_images.1", message: expect.stringContaining("image data URI") },
      ],
    });
  });

  it("refuses too many valid images, and still applies the form rules", () => {
    const images = Array.from({ length: REFERENCE_IMAGES_MAX_COUNT + 1 }, () => PNG);
    const validation = validateCreateRequest({ prompt: "x", reference_images: images, start_frame: PNG });
    expect(validation.success).toBe(false);
    if (validation.success) return;
    expect(validation.issues.map((issue) => issue.path)).toEqual([
      "reference_images",
      "reference_images",
      "end_frame",
    ]);
  });

  it("lists at most the first unknown fields and counts the rest", () => {
    const body: Record<string, unknown> = { prompt: "x" };
    for (let index = 0; index < 50_000; index++) body[`field_${index}`] = 0;
    const validation = validateCreateRequest(body);
    expect(validation.success).toBe(false);
    if (validation.success) return;
    expect(validation.total).toBe(50_000);
    expect(validation.issues).toHaveLength(VALIDATION_ISSUES_MAX_COUNT);
    expect(validation.issues[0]).toEqual({
      path: "field_0",
      message: expect.stringMatching(/^Unknown field "field_0"/),
    });
  });

  it("cuts what it quotes: long field names and long messages", () => {
    const long = "k".repeat(1_000_000);
    const validation = validateCreateRequest({
      prompt: "x",
      [long]: 1,
      start_frame: `data:${long},AAAA`,
      end_frame: PNG,
    });
    expect(validation.success).toBe(false);
    if (validation.success) return;
    expect(validation.total).toBe(2);
    for (const issue of validation.issues) {
      expect(issue.path.length).toBeLessThanOrEqual(65);
      expect(issue.message.length).toBeLessThanOrEqual(401);
    }
    expect(validation.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([`${"k".repeat(64)}…`, "start_frame"]),
    );
  });

  it("keeps a __proto__ field a field, refused by name", () => {
    const validation = validateCreateRequest(JSON.parse('{"prompt":"x","__proto__":{"polluted":true}}'));
    expect(validation).toMatchObject({ success: false, total: 1, issues: [{ path: "__proto__" }] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses frames whose data URI header is millions of parameters, naming each field", () => {
    // Of the documented image size; a pattern reading the header overflowed the stack on it.
    const hostile = `data:${";".repeat(14_000_000)}`;
    const validation = validateCreateRequest({ prompt: "x", start_frame: hostile, end_frame: hostile });
    expect(validation).toMatchObject({
      success: false,
      issues: [
        { path: "start_frame", message: expect.stringContaining("image data URI") },
        { path: "end_frame", message: expect.stringContaining("image data URI") },
      ],
    });
  });

  it("refuses a body that is not an object with one issue", () => {
    expect(validateCreateRequest(Array.from({ length: 10_000 }, () => 0))).toEqual({
      success: false,
      total: 1,
      issues: [{ path: "", message: "The request body must be a JSON object." }],
    });
  });
});
