import { describe, expect, it } from "vitest";
import { humanDuration, humanTime } from "./format.js";

describe("humanTime", () => {
  it("writes a service time to the second, in UTC, and a dash for none", () => {
    expect(humanTime(Date.UTC(2026, 10, 23, 22, 50, 1, 234))).toBe("2026-11-23 22:50:01 UTC");
    expect(humanTime(null)).toBe("—");
    expect(humanTime(undefined)).toBe("—");
  });
});

describe("humanDuration", () => {
  it.each([
    [0, "now"],
    [7 * 86_400_000, "7 d"],
    [36 * 3_600_000, "36 h"],
    [90 * 60_000, "90 min"],
    [1_500, "2 s"],
  ])("writes %d ms as %j, in the largest whole unit", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
