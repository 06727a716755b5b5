import * as z from "zod/mini";
import { ASPECT_RATIOS, MODEL_TYPES } from "./catalog.js";

// First cut of the request shape; the full rules of DESIGN.md (forms, image limits) build on it.
export const GenerationRequestSchema = z.strictObject({
  prompt: z.string().check(z.trim(), z.minLength(1), z.maxLength(2000)),
  model_type: z.optional(z.enum(MODEL_TYPES as [string, ...string[]])),
  aspect_ratio: z.optional(z.enum(ASPECT_RATIOS)),
  start_frame: z.optional(z.string()),
  end_frame: z.optional(z.string()),
  reference_images: z.optional(z.array(z.string()).check(z.minLength(1), z.maxLength(4))),
  callback_url: z.optional(z.string()),
});

export type GenerationRequest = z.infer<typeof GenerationRequestSchema>;
