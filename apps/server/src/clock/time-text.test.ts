import { describe, expect, it } from "vitest";
import { isoTime, roughDuration } from "./time-text.js";

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

describe("roughDuration", () => {
  it("says a span in the largest unit it holds twice, rounded", () => {
    expect(roughDuration(86_400_000)).toBe("24 h");
    expect(roughDuration(47 * 3_600_000 + 59 * 60_000)).toBe("48 h");
    expect(roughDuration(2 * 86_400_000)).toBe("2 d");
    expect(roughDuration(24 * 60_000)).toBe("24 min");
    expect(roughDuration(119_000)).toBe("119 s");
    expect(roughDuration(0)).toBe("0 s");
  });
});
