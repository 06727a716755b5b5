import { describe, expect, it } from "vitest";
import { GenVideoError } from "./index.js";

describe("GenVideoError", () => {
  it("is recognised by isInstance, even without instanceof", () => {
    const error = new GenVideoError("boom");
    expect(GenVideoError.isInstance(error)).toBe(true);
    expect(
      GenVideoError.isInstance(Object.assign(new Error("x"), { [Symbol.for("genvideo.error")]: true })),
    ).toBe(true);
    expect(GenVideoError.isInstance(new Error("boom"))).toBe(false);
    expect(GenVideoError.isInstance(null)).toBe(false);
  });
});
