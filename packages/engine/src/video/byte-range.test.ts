import { describe, expect, it } from "vitest";
import { matchesNoneMatch, parseRange } from "./byte-range.js";

describe("parseRange", () => {
  it("reads single ranges, open-ended and suffix ranges", () => {
    expect(parseRange("bytes=0-0", 10)).toEqual({ kind: "partial", start: 0, end: 0 });
    expect(parseRange("bytes=3-", 10)).toEqual({ kind: "partial", start: 3, end: 9 });
    expect(parseRange("bytes=-3", 10)).toEqual({ kind: "partial", start: 7, end: 9 });
    expect(parseRange("bytes=-30", 10)).toEqual({ kind: "partial", start: 0, end: 9 });
  });

  it("takes the unit in any case and spaces around its parts, as before", () => {
    expect(parseRange("BYTES=2-4", 10)).toEqual({ kind: "partial", start: 2, end: 4 });
    expect(parseRange(" bytes = 2 - 4 ", 10)).toEqual({ kind: "partial", start: 2, end: 4 });
    expect(parseRange("bytes=\t-3", 10)).toEqual({ kind: "partial", start: 7, end: 9 });
  });

  it("sends the whole video for positions that are not plain digits, and for overlong headers", () => {
    for (const header of [
      "bytes=1x-2",
      "bytes=1-2x",
      "bytes=+1-2",
      "bytes=1.5-2",
      "bytes=0-1-2",
      "bytes 0-1",
    ]) {
      expect(parseRange(header, 10), header).toEqual({ kind: "whole" });
    }
    expect(parseRange(`bytes=0-${" ".repeat(300)}`, 10)).toEqual({ kind: "whole" });
  });

  it("sends the whole video for absent, malformed, reversed or multiple ranges", () => {
    for (const header of [undefined, "items=0-1", "bytes=5-2", "bytes=0-1,4-5", "bytes=-"]) {
      expect(parseRange(header, 10)).toEqual({ kind: "whole" });
    }
  });

  it("finds ranges past the end unsatisfiable", () => {
    expect(parseRange("bytes=10-", 10)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-0", 10)).toEqual({ kind: "unsatisfiable" });
  });
});

describe("matchesNoneMatch", () => {
  it("compares weakly and accepts lists and *", () => {
    expect(matchesNoneMatch('"a", W/"b"', '"b"')).toBe(true);
    expect(matchesNoneMatch("*", '"b"')).toBe(true);
    expect(matchesNoneMatch('"a"', '"b"')).toBe(false);
    expect(matchesNoneMatch(undefined, '"b"')).toBe(false);
  });
});
