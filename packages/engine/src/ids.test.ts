import { describe, expect, it } from "vitest";
import { timeOrderedId } from "./ids.js";

describe("timeOrderedId", () => {
  it("is a UUID v7 whose first 48 bits are the Unix milliseconds", () => {
    const id = timeOrderedId(Date.UTC(2026, 10, 22, 12, 0, 0, 123));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16)).toBe(
      Date.UTC(2026, 10, 22, 12, 0, 0, 123),
    );
  });

  it("sorts later ids after earlier ones, and never repeats", () => {
    const ids = Array.from({ length: 1000 }, (_, index) => timeOrderedId(1_700_000_000_000 + index));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => timeOrderedId(1_700_000_000_000))).size).toBe(1000);
  });
});
