import { describe, expect, it } from "vitest";
import { validationMessage } from "./validation-issue.js";

const issue = (message: string) => ({ path: "prompt", message });

describe("validationMessage", () => {
  it("says the first issue, and how many more in the right number", () => {
    expect(validationMessage([issue("prompt is required.")])).toBe("prompt is required.");
    expect(validationMessage([issue("prompt is required."), issue("b")])).toBe(
      "prompt is required. (and 1 more issue)",
    );
    expect(validationMessage([issue("prompt is required."), issue("b"), issue("c")])).toBe(
      "prompt is required. (and 2 more issues)",
    );
    expect(validationMessage([])).toBe("The request is invalid.");
  });
});
