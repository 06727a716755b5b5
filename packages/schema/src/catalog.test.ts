import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL_TYPE, FAILURE_CODES, MODEL_TYPES, MODELS } from "./index.js";

describe("catalog", () => {
  it("prices every model and defaults to the fast one", () => {
    expect(MODEL_TYPES).toEqual(["gen-3-fast", "gen-3"]);
    expect(MODELS[DEFAULT_MODEL_TYPE].credits).toBe(1);
    expect(MODELS["gen-3"].credits).toBe(2);
  });

  it("lists the failure codes of the contract", () => {
    expect(FAILURE_CODES).toEqual(["UNSAFE_CONTENT", "TIMEOUT", "GENERATION_FAILED"]);
  });
});
