import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["10m", 600_000],
    ["90s", 90_000],
    ["1h30m", 5_400_000],
    ["1h 30m", 5_400_000],
    ["90 s", 90_000],
    ["250ms", 250],
    ["7d", 604_800_000],
    ["1.5s", 1_500],
    ["0.0005s", 1],
    [" 24h ", 86_400_000],
    ["90", 90_000],
    ["0", 0],
    [1_500, 1_500],
    [0.5, 0.5],
  ])("%j is %d ms", (input, expected) => {
    expect(parseDuration(input)).toBe(expected);
  });

  it.each([
    "",
    "   ",
    "ten minutes",
    "5x",
    "-1s",
    "+1s",
    "1H",
    "s",
    "1h 30",
    "30 1h",
    "1.5.5s",
    "1m s",
    "1e3s",
    "9".repeat(400),
    -1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])("refuses %j with a RangeError", (input) => {
    expect(() => parseDuration(input)).toThrow(RangeError);
  });

  it("quotes the input and the accepted forms", () => {
    expect(() => parseDuration("soon")).toThrow(
      'invalid duration "soon": use forms like 500ms, 90s, 10m, 1h30m or 7d',
    );
  });
});
