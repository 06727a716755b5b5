import { describe, expect, it } from "vitest";
import { scenarioOf } from "./scenario.js";

describe("scenarioOf", () => {
  it("reads each marker of the operating contract", () => {
    expect(scenarioOf("a fox [[fail:UNSAFE_CONTENT]]")).toEqual({ fail: "UNSAFE_CONTENT" });
    expect(scenarioOf("[[fail:GENERATION_FAILED]] a fox")).toEqual({ fail: "GENERATION_FAILED" });
    expect(scenarioOf("a fox [[timeout]]")).toEqual({ timeout: true });
    expect(scenarioOf("a fox [[delay:90s]]")).toEqual({ delayMs: 90_000 });
    expect(scenarioOf("[[delay:2m]] [[delay:5s]]")).toEqual({ delayMs: 120_000 });
    expect(scenarioOf("[[delay:1.5s]]")).toEqual({ delayMs: 1_500 });
    expect(scenarioOf("[[delay:250ms]]")).toEqual({ delayMs: 250 });
    expect(scenarioOf("[[fail:UNSAFE_CONTENT]] [[delay:5s]]")).toEqual({
      fail: "UNSAFE_CONTENT",
      delayMs: 5_000,
    });
  });

  it("treats unknown or malformed markers as text", () => {
    expect(scenarioOf("[[fail:TIMEOUT]] [[fail:unsafe_content]] [[delay:soon]] [[explode]]")).toEqual({});
  });

  it("flags unsafe words as whole words, any case", () => {
    const words = ["gore", "blood bath"];
    expect(scenarioOf("Lots of GORE here", words)).toEqual({ fail: "UNSAFE_CONTENT" });
    expect(scenarioOf("a Blood Bath", words)).toEqual({ fail: "UNSAFE_CONTENT" });
    expect(scenarioOf("gore's aftermath", words)).toEqual({ fail: "UNSAFE_CONTENT" });
    expect(scenarioOf("a gorgeous view", words)).toEqual({});
    expect(scenarioOf("anything", ["", "  "])).toEqual({});
  });
});
