import { describe, expect, it } from "vitest";
import * as root from "./index.js";
import * as vitest from "./vitest.js";

// The entries' run-time exports, pinned: a change here is a change of what users import.
describe("package entries", () => {
  it("@genvideo/msw exports the mock, its video bytes and the duration parser", () => {
    expect(Object.keys(root).sort()).toEqual(["createGenVideoMock", "mockVideoBytes", "parseDuration"]);
  });
  it("@genvideo/msw/vitest exports the vitest setup", () => {
    expect(Object.keys(vitest).sort()).toEqual(["setupGenVideoMock"]);
  });
});
