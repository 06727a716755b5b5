import { describe, expect, it } from "vitest";
import { AdminError } from "./admin-service.js";

describe("AdminError.isInstance", () => {
  it("recognises an AdminError, also one whose brand came from another copy of the package", () => {
    expect(AdminError.isInstance(new AdminError("no account with id x"))).toBe(true);
    const fromAnotherCopy = Object.defineProperty(new Error("x"), Symbol.for("genvideo.engine.AdminError"), {
      value: true,
    });
    expect(AdminError.isInstance(fromAnotherCopy)).toBe(true);
  });

  it("refuses other errors, even one merely named AdminError", () => {
    const named = Object.assign(new Error("x"), { name: "AdminError" });
    expect(AdminError.isInstance(named)).toBe(false);
    expect(AdminError.isInstance(new Error("x"))).toBe(false);
    expect(AdminError.isInstance("AdminError")).toBe(false);
    expect(AdminError.isInstance(null)).toBe(false);
  });
});
