import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, nextPageHref, ORIGIN, PAGE_SIZE } from "./pagination.js";

describe("keyset pages", () => {
  it("round-trips a cursor whose id holds underscores, and the origin as 0_", () => {
    const cursor = { createdAt: 1_764_000_000_000, id: "msg_test_0a1b" };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    expect(encodeCursor(ORIGIN)).toBe("0_");
    expect(decodeCursor("0_")).toEqual(ORIGIN);
  });

  it("refuses text that is not a cursor", () => {
    for (const text of ["", "abc", "_x", "12", "1_x y", `1_${"a".repeat(65)}`, "12345678901234567_a"])
      expect(decodeCursor(text)).toBeUndefined();
  });

  it("links the next page only after a full page, from its last row", () => {
    const rows = Array.from({ length: PAGE_SIZE }, (_, i) => ({ createdAt: 1000 - i, id: `r${i}` }));
    expect(nextPageHref(rows, (after) => `/list?after=${after}`)).toBe(
      `/list?after=${1000 - PAGE_SIZE + 1}_r${PAGE_SIZE - 1}`,
    );
    expect(nextPageHref(rows.slice(1), (after) => after)).toBeUndefined();
    expect(nextPageHref([], (after) => after)).toBeUndefined();
  });
});
