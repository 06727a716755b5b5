import { describe, expect, it } from "vitest";
import { requestIdFor, timeOrderedId } from "./ids.js";

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

describe("requestIdFor", () => {
  const ours = () => "5f0c2e7d-8a41-4c2f-9b1a-019aab1e7d3e";

  it("reuses a client's id of 1 to 128 of [A-Za-z0-9._:-]", () => {
    expect(requestIdFor("trace-42:a.b_C", ours)).toBe("trace-42:a.b_C");
    expect(requestIdFor("x".repeat(128), ours)).toBe("x".repeat(128));
  });

  it("gives req_<uuid> to a request without one, or with one too long or not plain", () => {
    for (const incoming of [undefined, null, "", "x".repeat(129), "a b", "a\nb", "<script>", "ünï"])
      expect(requestIdFor(incoming, ours)).toBe(`req_${ours()}`);
    expect(requestIdFor(undefined)).toMatch(
      /^req_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
