import { describe, expect, it } from "vitest";
import { bytesToBase64, seededRandom } from "./seeded-random.js";

describe("seededRandom", () => {
  it("repeats for a seed and differs between seeds", () => {
    expect(seededRandom("a").alphanumeric(20)).toBe(seededRandom("a").alphanumeric(20));
    expect(seededRandom("a").alphanumeric(20)).not.toBe(seededRandom("b").alphanumeric(20));
    expect(seededRandom(1).bytes(8)).toEqual(seededRandom("1").bytes(8));
    expect(seededRandom("a").alphanumeric(64)).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it("encodes base64 like btoa over the bytes", () => {
    expect(bytesToBase64(new Uint8Array([0, 255, 16]))).toBe("AP8Q");
  });
});
