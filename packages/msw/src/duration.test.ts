import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["10m", 600_000],
    ["90s", 90_000],
    ["1h30m", 5_400_000],
    ["250ms", 250],
    [1_500, 1_500],
  ])("%s is %i ms", (input, expected) => {
    expect(parseDuration(input)).toBe(expected);
  });

  it.each(["", "10", "ten minutes", "5x", "-1s"])("refuses %j", (input) => {
    expect(() => parseDuration(input)).toThrow(RangeError);
  });
});
