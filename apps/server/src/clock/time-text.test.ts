import { describe, expect, it } from "vitest";
import { isoTime } from "./time-text.js";

const at = Date.UTC(2026, 10, 23, 22, 50, 1, 234);

describe("isoTime", () => {
  it("writes a service time as ISO 8601 in UTC to the millisecond, which Date reads back", () => {
    expect(isoTime(at)).toBe("2026-11-23T22:50:01.234Z");
    expect(Date.parse(isoTime(at))).toBe(at);
  });

  it("writes nothing for no time", () => {
    expect(isoTime(null)).toBe("");
  });
});
