import { encodeBase64 } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { seededRandom } from "./seeded-random.js";

describe("seededRandom", () => {
  it("repeats for a seed and differs between seeds", () => {
    expect(seededRandom("a").alphanumeric(20)).toBe(seededRandom("a").alphanumeric(20));
    expect(seededRandom("a").alphanumeric(20)).not.toBe(seededRandom("b").alphanumeric(20));
    expect(seededRandom(1).bytes(8)).toEqual(seededRandom("1").bytes(8));
    expect(seededRandom("a").alphanumeric(64)).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it("makes UUID v4 strings that repeat for a seed and differ between seeds", () => {
    const one = seededRandom("a");
    const ids = [one.uuid(), one.uuid(), one.uuid()];
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
    const again = seededRandom("a");
    expect([again.uuid(), again.uuid(), again.uuid()]).toEqual(ids);
    expect(seededRandom("b").uuid()).not.toBe(ids[0]);
  });

  it("encodes base64 like btoa over the bytes", () => {
    expect(encodeBase64(new Uint8Array([0, 255, 16]))).toBe("AP8Q");
  });
});
