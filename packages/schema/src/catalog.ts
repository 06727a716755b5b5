/** Models the service offers, with what one task costs in credits. */
export const MODELS = {
  "gen-3-fast": { credits: 1 },
  "gen-3": { credits: 2 },
} as const satisfies Record<string, { credits: number }>;

export type ModelType = keyof typeof MODELS;
export const MODEL_TYPES: readonly ModelType[] = Object.keys(MODELS) as ModelType[];
export const DEFAULT_MODEL_TYPE: ModelType = "gen-3-fast";

export const ASPECT_RATIOS = ["16:9", "9:16", "1:1"] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const DEFAULT_ASPECT_RATIO: AspectRatio = "16:9";

/** Codes a failed task carries in `message` (status endpoint) and in the webhook. */
export const FAILURE_CODES = ["UNSAFE_CONTENT", "TIMEOUT", "GENERATION_FAILED"] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];
