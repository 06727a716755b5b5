import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time.js";

const iso = (ms: number) => new Date(ms).toISOString();

describe("isoTime", () => {
  it("writes what toISOString writes at the edges of days, months, leap years and centuries", () => {
    const edges = [
      0,
      1,
      999,
      59_999,
      86_399_999,
      86_400_000,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2100, 2, 1),
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(iso(ms));
  });

  it("writes what toISOString writes for any millisecond of years 1970 to 9999", () => {
    for (let index = 0; index < 20_000; index++) {
      const ms = Math.floor(Math.random() * Date.UTC(10_000, 0, 1));
      expect(isoTime(ms)).toBe(iso(ms));
    }
  });

  it("leaves times before 1970, past year 9999 or between milliseconds to toISOString", () => {
    for (const ms of [-1, -86_400_001, Date.UTC(10_000, 0, 1), 1.5]) expect(isoTime(ms)).toBe(iso(ms));
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
