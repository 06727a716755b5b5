import { describe, expect, it } from "vitest";
import { constantTimeEqual } from "./web-crypto.js";

describe("constantTimeEqual", () => {
  it("is string equality", () => {
    const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    expect(constantTimeEqual(hash, hash.slice())).toBe(true);
    expect(constantTimeEqual(hash, `${hash.slice(0, -1)}9`)).toBe(false);
    expect(constantTimeEqual(hash, hash.slice(0, -1))).toBe(false);
    expect(constantTimeEqual(`${hash}\u0000`, hash)).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("é", "e\u0301")).toBe(false);
    expect(constantTimeEqual("日本", "日本")).toBe(true);
  });
});
